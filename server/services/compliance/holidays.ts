import { DateTime } from "luxon";

/**
 * US federal legal holidays (5 U.S.C. § 6103) of a year, as `yyyy-MM-dd`, with their observed days: a holiday on a
 * Saturday is also observed the Friday before, one on a Sunday the Monday after. States that close calling on
 * legal holidays close all of these days (both the date and the observed day: the stricter reading).
 */
export function federalHolidays(year: number): ReadonlySet<string> {
  const cached = cache.get(year);
  if (cached) return cached;
  const date = (month: number, day: number) => DateTime.utc(year, month, day);
  /** The n-th `weekday` (1 = Monday) of the month; n = -1 is the last one. */
  const nth = (month: number, weekday: number, n: number) => {
    if (n > 0) {
      const first = date(month, 1);
      return first.plus({ days: ((weekday - first.weekday + 7) % 7) + (n - 1) * 7 });
    }
    const last = date(month, 1).endOf("month").startOf("day");
    return last.minus({ days: (last.weekday - weekday + 7) % 7 });
  };
  const fixed = [date(1, 1), date(6, 19), date(7, 4), date(11, 11), date(12, 25)];
  const floating = [nth(1, 1, 3), nth(2, 1, 3), nth(5, 1, -1), nth(9, 1, 1), nth(10, 1, 2), nth(11, 4, 4)];
  const days = new Set<string>();
  for (const day of [...fixed, ...floating]) days.add(day.toISODate()!);
  for (const day of fixed) {
    if (day.weekday === 6) days.add(day.minus({ days: 1 }).toISODate()!);
    if (day.weekday === 7) days.add(day.plus({ days: 1 }).toISODate()!);
  }
  // New Year's Day on a Saturday is observed on Dec 31 of the year before.
  const nextNewYear = DateTime.utc(year + 1, 1, 1);
  if (nextNewYear.weekday === 6) days.add(`${year}-12-31`);
  cache.set(year, days);
  return days;
}

const cache = new Map<number, ReadonlySet<string>>();

export function isFederalHoliday(localDate: string): boolean {
  return federalHolidays(Number(localDate.slice(0, 4))).has(localDate);
}
