/** Plain-language formatting shared by the kit's components and pages (no React here: unit-testable). */

/** `93` → `1:33`; `3723` → `1:02:03`. */
export function formatDuration(seconds: number): string {
  const whole = Math.max(0, Math.floor(seconds));
  const hours = Math.floor(whole / 3600);
  const minutes = Math.floor((whole % 3600) / 60);
  const rest = String(whole % 60).padStart(2, "0");
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, "0")}:${rest}` : `${minutes}:${rest}`;
}

/** Minutes after midnight → "HH:MM" (1440 is "24:00"). */
export function formatClock(minutes: number): string {
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  return `${String(h).padStart(2, "0")}:${String(m).padStart(2, "0")}`;
}

/** A daily window: "09:00–17:00"; the whole day (0–1440) is "All day". */
export function formatTimeWindow(startTime: number, endTime: number): string {
  if (startTime <= 0 && endTime >= 1440) return "All day";
  return `${formatClock(startTime)}–${formatClock(endTime)}`;
}

/** `SOME_CODE` or `some-code` → "Some code" (for enum values that have no better label). */
export function humanize(value: string): string {
  const words = value.replace(/[_-]+/g, " ").trim().toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** "1 call", "3 calls". */
export function plural(count: number, singular: string, pluralForm = `${singular}s`): string {
  return `${count.toLocaleString("en-US")} ${count === 1 ? singular : pluralForm}`;
}

/** A UTC calendar day ("2026-11-03") as "Nov 3, 2026" (credit periods are UTC days, as in the API). */
export function formatUtcDay(day: string, options: { year?: boolean } = {}): string {
  const date = new Date(`${day}T00:00:00Z`);
  if (Number.isNaN(date.getTime())) return day;
  return new Intl.DateTimeFormat("en-US", { timeZone: "UTC", month: "short", day: "numeric", ...(options.year === false ? {} : { year: "numeric" }) }).format(date);
}

/** A billing month ("2026-11") as "November 2026". */
export function formatMonth(month: string): string {
  const date = new Date(`${month}-01T00:00:00Z`);
  if (Number.isNaN(date.getTime())) return month;
  return new Intl.DateTimeFormat("en-US", { timeZone: "UTC", month: "long", year: "numeric" }).format(date);
}

/** An E.164 number as people read it: `+12125550142` → "+1 (212) 555-0142" (North America); others as given. */
export function formatPhoneNumber(e164: string): string {
  const nanp = /^\+1(\d{3})(\d{3})(\d{4})$/.exec(e164);
  return nanp ? `+1 (${nanp[1]}) ${nanp[2]}-${nanp[3]}` : e164;
}
