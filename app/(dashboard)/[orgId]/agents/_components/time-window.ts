/** Minutes after local midnight ↔ "HH:MM" (1440 is written 24:00), and zone conversions with Intl only (no date library). */

export function minutesToClock(minutes: number): string {
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  return `${String(h).padStart(2, "0")}:${String(m).padStart(2, "0")}`;
}

export function clockToMinutes(value: string): number | null {
  const match = /^(\d{1,2}):(\d{2})$/.exec(value);
  if (!match) return null;
  const minutes = Number(match[1]) * 60 + Number(match[2]);
  return minutes >= 0 && minutes <= 1440 ? minutes : null;
}

/** UTC offset of `zone` at `instant`, in minutes (e.g. -300 for New York in winter). */
export function zoneOffsetMinutes(zone: string, instant: Date): number {
  const part = new Intl.DateTimeFormat("en-US", { timeZone: zone, timeZoneName: "longOffset" })
    .formatToParts(instant)
    .find((p) => p.type === "timeZoneName")?.value;
  const match = /GMT([+-])(\d{2}):?(\d{2})?/.exec(part ?? "");
  if (!match) return 0;
  const sign = match[1] === "-" ? -1 : 1;
  return sign * (Number(match[2]) * 60 + Number(match[3] ?? 0));
}

/** The instant at `minutes` after midnight of today's date in `zone`. */
export function instantInZone(zone: string, minutes: number, now = new Date()): Date {
  const ymd = new Intl.DateTimeFormat("en-CA", { timeZone: zone, year: "numeric", month: "2-digit", day: "2-digit" }).format(now);
  const [y, mo, d] = ymd.split("-").map(Number) as [number, number, number];
  const guess = Date.UTC(y, mo - 1, d, 0, minutes);
  const offset = zoneOffsetMinutes(zone, new Date(guess));
  return new Date(guess - offset * 60_000);
}

export function formatInZone(instant: Date, zone: string | undefined): string {
  return new Intl.DateTimeFormat(undefined, { timeZone: zone, hour: "2-digit", minute: "2-digit", weekday: "short" }).format(instant);
}

export function isValidZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}
