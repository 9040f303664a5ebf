"use client";

import { useSyncExternalStore } from "react";
import { formatDuration, formatTimeWindow } from "./format";

const subscribe = () => () => {};
/** False during the server render and hydration, true after: the server cannot know the viewer's timezone. */
export function useIsClient(): boolean {
  return useSyncExternalStore(subscribe, () => true, () => false);
}

function format(iso: string, timeZone: string | undefined, dateOnly: boolean): string | null {
  try {
    return new Intl.DateTimeFormat(timeZone === "UTC" ? "en-US" : undefined, {
      dateStyle: "medium",
      ...(dateOnly ? {} : { timeStyle: "short" }),
      ...(timeZone ? { timeZone } : {}),
    }).format(new Date(iso));
  } catch {
    return null;
  }
}

export function viewerTimezone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}

/**
 * A moment in the viewer's timezone ("Nov 23, 2026, 3:04 PM"). The server render shows UTC and says so; the browser
 * renders local time after hydration (the first client render matches the server's, so nothing mismatches).
 */
export function LocalTime({ iso, dateOnly = false, className }: { iso: string | null | undefined; dateOnly?: boolean; className?: string }) {
  const isClient = useIsClient();
  if (!iso) return <span className="text-muted-foreground">—</span>;
  const text = format(iso, isClient ? undefined : "UTC", dateOnly);
  return (
    <time dateTime={iso} className={className}>
      {text}
      {!isClient && !dateOnly ? " UTC" : ""}
    </time>
  );
}

/**
 * A moment in the viewer's timezone with the contact's beside it (the zone their calls and windows use) when the two
 * differ. `stacked` puts the contact's on a second line (table cells).
 */
export function ZonedTime({ iso, contactZone, stacked = false }: { iso: string | null | undefined; contactZone?: string | null; stacked?: boolean }) {
  const isClient = useIsClient();
  if (!iso) return <span className="text-muted-foreground">—</span>;
  if (!isClient) return <time dateTime={iso}>{format(iso, "UTC", false)} UTC</time>;
  const viewerZone = viewerTimezone();
  const contact = contactZone && contactZone !== viewerZone ? format(iso, contactZone, false) : null;
  return (
    <span className={stacked ? "inline-flex flex-col" : undefined}>
      <time dateTime={iso}>{format(iso, undefined, false)}</time>
      {!stacked && contact && <span className="text-muted-foreground"> your time</span>}
      {contact && (
        <span className="text-sm text-muted-foreground">
          {stacked ? "" : " · "}
          {contact} for the contact ({contactZone})
        </span>
      )}
    </span>
  );
}

/** A length of time, `6:49` (`1:02:03` past an hour), read out as "6 minutes 49 seconds". */
export function Duration({ seconds }: { seconds: number | null | undefined }) {
  if (seconds === null || seconds === undefined) return <span className="text-muted-foreground">—</span>;
  const whole = Math.max(0, Math.floor(seconds));
  const m = Math.floor(whole / 60);
  const s = whole % 60;
  const spoken = `${m > 0 ? `${m} minute${m === 1 ? "" : "s"} ` : ""}${s} second${s === 1 ? "" : "s"}`;
  return (
    <span className="tabular-nums" aria-label={spoken}>
      {formatDuration(whole)}
    </span>
  );
}

/** A daily calling window in minutes after midnight: "09:00–17:00", or "All day" for 0–1440. */
export function TimeWindow({ startTime, endTime }: { startTime: number; endTime: number }) {
  return <span className="tabular-nums">{formatTimeWindow(startTime, endTime)}</span>;
}
