"use client";

import { useSyncExternalStore } from "react";

const subscribe = () => () => {};

/**
 * A timestamp in the viewer's timezone. The server cannot know that zone, so the server render shows UTC and the
 * browser renders the local time after hydration (no mismatch warning: the first client render matches the server).
 */
export function LocalTime({ iso, dateOnly = false }: { iso: string | null | undefined; dateOnly?: boolean }) {
  const isClient = useSyncExternalStore(subscribe, () => true, () => false);
  if (!iso) return <span className="hint">—</span>;
  const date = new Date(iso);
  const options: Intl.DateTimeFormatOptions = {
    dateStyle: "medium",
    ...(dateOnly ? {} : { timeStyle: "short" }),
    ...(isClient ? {} : { timeZone: "UTC" }),
  };
  const text = new Intl.DateTimeFormat(isClient ? undefined : "en-US", options).format(date);
  return (
    <time dateTime={iso} title={iso}>
      {text}
      {!isClient && !dateOnly ? " UTC" : ""}
    </time>
  );
}

export function viewerTimezone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}
