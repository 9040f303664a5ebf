const MAX_BACKOFF_MS = 12 * 60 * 60 * 1000;
const BASE_BACKOFF_MS = 10_000;

/** Backoff before retry `attempt` (1-based): 10 s doubling up to 12 h, plus up to 20 % jitter. */
export function retryDelayMs(attempt: number, random: () => number): number {
  const base = Math.min(BASE_BACKOFF_MS * 2 ** Math.max(0, attempt - 1), MAX_BACKOFF_MS);
  return Math.round(base * (1 + 0.2 * random()));
}

/** `retry-after` as the SDK sends it for RetryAfterError: seconds, or an ISO date. */
export function retryAfterMs(header: string | null, now: Date): number | null {
  if (!header) return null;
  if (/^\d+(\.\d+)?$/.test(header.trim())) return Number(header) * 1000;
  const date = new Date(header);
  return Number.isNaN(date.getTime()) ? null : Math.max(0, date.getTime() - now.getTime());
}
