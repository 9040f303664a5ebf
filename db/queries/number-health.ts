import { and, asc, eq, gte, inArray, ne, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { numberDailyStats, numbers } from "@/db/schema";

export type PeerAnswerCounts = { all: { calls: number; answered: number }; stratum: { calls: number; answered: number } };

/**
 * The answerable calls (answered, voicemail, no answer, busy) and those answered by a person, of the organization's
 * numbers other than `phoneNumber`, on the days from `sinceDay` (UTC, `YYYY-MM-DD`): all of them, and those of one
 * stratum. One aggregate over number_daily_stats (organization, day).
 */
export async function findPeerAnswerCounts(db: DbOrTx, params: { organizationId: string; phoneNumber: string; stratum: string; sinceDay: string }): Promise<PeerAnswerCounts> {
  const [row] = await db
    .select({
      calls: sql<number>`coalesce(sum(${numberDailyStats.answered} + ${numberDailyStats.voicemail} + ${numberDailyStats.noAnswer} + ${numberDailyStats.busy}), 0)::int`,
      answered: sql<number>`coalesce(sum(${numberDailyStats.answered}), 0)::int`,
      stratumCalls: sql<number>`coalesce(sum((${numberDailyStats.strata} -> ${params.stratum}::text ->> 0)::int), 0)::int`,
      stratumAnswered: sql<number>`coalesce(sum((${numberDailyStats.strata} -> ${params.stratum}::text ->> 1)::int), 0)::int`,
    })
    .from(numberDailyStats)
    .where(and(eq(numberDailyStats.organizationId, params.organizationId), gte(numberDailyStats.day, params.sinceDay), ne(numberDailyStats.phoneNumber, params.phoneNumber)));
  return {
    all: { calls: Number(row?.calls ?? 0), answered: Number(row?.answered ?? 0) },
    stratum: { calls: Number(row?.stratumCalls ?? 0), answered: Number(row?.stratumAnswered ?? 0) },
  };
}

/** The organization's live (not released) row of `phoneNumber`, the active one first; null when it has none. */
export async function findLiveOrganizationNumber(db: DbOrTx, params: { organizationId: string; phoneNumber: string }) {
  const [row] = await db
    .select({ id: numbers.id, health: numbers.health, restingUntil: numbers.restingUntil, healthReason: numbers.healthReason })
    .from(numbers)
    .where(and(eq(numbers.organizationId, params.organizationId), eq(numbers.phoneNumber, params.phoneNumber), ne(numbers.status, "released")))
    .orderBy(sql`${numbers.status} = 'active' desc`)
    .limit(1);
  return row ?? null;
}

/** The daily counters of these numbers of the organization, from `sinceDay` on, oldest first. */
export async function findNumberDailyStats(db: DbOrTx, params: { organizationId: string; phoneNumbers: string[]; sinceDay: string }) {
  if (params.phoneNumbers.length === 0) return [];
  return db
    .select()
    .from(numberDailyStats)
    .where(and(eq(numberDailyStats.organizationId, params.organizationId), inArray(numberDailyStats.phoneNumber, params.phoneNumbers), gte(numberDailyStats.day, params.sinceDay)))
    .orderBy(asc(numberDailyStats.phoneNumber), asc(numberDailyStats.day));
}
