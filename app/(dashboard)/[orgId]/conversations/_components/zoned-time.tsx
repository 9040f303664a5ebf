"use client";

import { useSyncExternalStore } from "react";

const subscribe = () => () => {};

function format(iso: string, timeZone: string | undefined): string | null {
  try {
    return new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short", ...(timeZone ? { timeZone } : {}) }).format(new Date(iso));
  } catch {
    return null;
  }
}

/**
 * A time in the viewer's timezone and, beside it, in the contact's (the zone the calls and windows use). The server
 * render shows UTC only; the browser fills in the local zones after hydration, so nothing mismatches.
 */
export function ZonedTime({ iso, contactZone, compact = false }: { iso: string | null | undefined; contactZone?: string | null; compact?: boolean }) {
  const isClient = useSyncExternalStore(subscribe, () => true, () => false);
  if (!iso) return <span className="hint">—</span>;
  if (!isClient) return <time dateTime={iso}>{format(iso, "UTC")} UTC</time>;
  const viewerZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const viewer = format(iso, undefined);
  const showContact = contactZone && contactZone !== viewerZone;
  const contact = showContact ? format(iso, contactZone) : null;
  return (
    <span>
      <time dateTime={iso} title={`${iso} (${viewerZone})`}>
        {viewer}
      </time>
      {!compact && <span className="hint"> your time</span>}
      {contact && (
        <>
          {compact ? <br /> : " · "}
          <span className="hint" title={`${iso} in ${contactZone}`}>
            {contact} {compact ? contactZone : `contact's time (${contactZone})`}
          </span>
        </>
      )}
    </span>
  );
}
