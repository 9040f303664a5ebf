/**
 * Delays before the automatic retries of a failed delivery: after 5 s, 30 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h
 * (9 attempts over about 27.6 hours, then the delivery is `failed` and can still be replayed).
 */
export const RETRY_SCHEDULE_MS = [
  5_000,
  30_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
  10 * 3_600_000,
] as const;

export const MAX_AUTOMATIC_ATTEMPTS = RETRY_SCHEDULE_MS.length + 1;

/** A receiver's Retry-After is honoured up to this long. */
export const MAX_RETRY_AFTER_MS = 24 * 3_600_000;

/**
 * Delay after failed automatic attempt `attempt` (1-based), or null when the schedule is exhausted.
 * A `Retry-After` (429/503) is honoured: the retry never comes earlier than the receiver asked, nor earlier than the schedule.
 */
export function retryDelayAfter(attempt: number, retryAfterMs: number | null): number | null {
  const scheduled = RETRY_SCHEDULE_MS[attempt - 1];
  if (scheduled === undefined) return null;
  if (retryAfterMs === null) return scheduled;
  return Math.max(scheduled, Math.min(retryAfterMs, MAX_RETRY_AFTER_MS));
}
