import { and, asc, eq, gte, inArray } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { numberDailyStats } from "@/db/schema";

/** The daily counters of these numbers of the organization, from `sinceDay` on, oldest first. */
export async function findNumberDailyStats(db: DbOrTx, params: { organizationId: string; phoneNumbers: string[]; sinceDay: string }) {
  if (params.phoneNumbers.length === 0) return [];
  return db
    .select()
    .from(numberDailyStats)
    .where(and(eq(numberDailyStats.organizationId, params.organizationId), inArray(numberDailyStats.phoneNumber, params.phoneNumbers), gte(numberDailyStats.day, params.sinceDay)))
    .orderBy(asc(numberDailyStats.phoneNumber), asc(numberDailyStats.day));
}
