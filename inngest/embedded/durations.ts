const UNIT_MS: Record<string, number> = { w: 604_800_000, d: 86_400_000, h: 3_600_000, m: 60_000, s: 1000, ms: 1 };

/** Milliseconds of an Inngest time string ("1d", "2h30m10s", "500ms"); null when it is not one. */
export function parseDuration(value: string): number | null {
  const trimmed = value.trim();
  if (!/^(\d+(\.\d+)?(ms|w|d|h|m|s))+$/.test(trimmed)) return null;
  let total = 0;
  for (const match of trimmed.matchAll(/(\d+(?:\.\d+)?)(ms|w|d|h|m|s)/g)) total += Number(match[1]) * UNIT_MS[match[2]!]!;
  return total;
}

/**
 * The instant a sleep / timeout ends: `value` is a time string relative to `now` (step.sleep, timeouts) or an ISO
 * date (step.sleepUntil, a Date timeout). Throws on anything else.
 */
export function resolveWakeTime(value: string, now: Date): Date {
  const duration = parseDuration(value);
  if (duration !== null) return new Date(now.getTime() + duration);
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) throw new Error(`Invalid time ${JSON.stringify(value)}: expected a duration like "1d2h" or an ISO date.`);
  return date;
}
