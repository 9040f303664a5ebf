import { and, eq, gte, lt, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { creditTransactions } from "@/db/schema";
import { resolveCreditPeriod, type GetCreditUsageParams } from "./get-credit-usage";

/**
 * Credits spent per UTC day over the same period GET /credits/usage would report (same parameters, same rules and
 * errors), every day of the period present (zero when nothing was spent). For the console's chart.
 */
export async function getDailyCreditSpend(db: DbOrTx, params: GetCreditUsageParams) {
  const period = resolveCreditPeriod(params);
  const day = sql<string>`to_char(${creditTransactions.createdAt} at time zone 'UTC', 'YYYY-MM-DD')`;
  const rows = await db
    .select({ date: day, spentCredits: sql<number>`coalesce(sum(${creditTransactions.credits}), 0)::int` })
    .from(creditTransactions)
    .where(
      and(
        eq(creditTransactions.organizationId, params.organizationId),
        gte(creditTransactions.createdAt, period.start.toJSDate()),
        lt(creditTransactions.createdAt, period.endExclusive.toJSDate()),
      ),
    )
    .groupBy(day);
  const byDate = new Map(rows.map((row) => [row.date, row.spentCredits]));
  const days: Array<{ date: string; spentCredits: number }> = [];
  for (let cursor = period.start; cursor < period.endExclusive; cursor = cursor.plus({ days: 1 })) {
    const date = cursor.toISODate()!;
    days.push({ date, spentCredits: byDate.get(date) ?? 0 });
  }
  return { days };
}
