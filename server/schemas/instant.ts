import { z } from "zod";
import { MAX_DATETIME_LENGTH, MAX_QUERY_YEAR, MIN_QUERY_YEAR } from "./limits";
import { boundedText } from "./text";

/** Whether an instant falls in the years MIN_QUERY_YEAR to MAX_QUERY_YEAR, in UTC. */
export function isWithinQueryYears(value: string): boolean {
  const time = Date.parse(value);
  if (!Number.isFinite(time)) return false;
  const year = new Date(time).getUTCFullYear();
  return year >= MIN_QUERY_YEAR && year <= MAX_QUERY_YEAR;
}

/**
 * An ISO 8601 date-time with a UTC offset (`2026-03-01T00:00:00Z`, `…+02:00`) in the years 1900–9999 once converted to
 * UTC, the range the REST query dates already have: PostgreSQL and JavaScript both represent it, so no instant a client
 * sends can fail in the database (year 0000, or `0001-01-01T00:00:00+14:00`, which is year 0 in UTC, were 500s).
 * For every console and REST input that is an instant.
 */
export function boundedInstant() {
  return boundedText(MAX_DATETIME_LENGTH)
    .pipe(z.iso.datetime({ offset: true }))
    .refine(isWithinQueryYears, `must be a date-time from ${MIN_QUERY_YEAR}-01-01 to ${MAX_QUERY_YEAR}-12-31 (UTC)`);
}
