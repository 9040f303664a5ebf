import { and, eq, gte, inArray, lt, sql } from "drizzle-orm";
import { DateTime } from "luxon";
import type { DbOrTx } from "@/db";
import { creditTransactions, optOuts, organizations } from "@/db/schema";
import { AppError } from "@/server/errors";
import { getMonthAllocation } from "@/server/services/credits/get-credit-usage";

/** This UTC month's allocation minus this month's ledger spend (the same figures GET /credits/usage reports). */
export async function getRemainingCredits(db: DbOrTx, params: { organizationId: string; now: Date }): Promise<number> {
  const monthStart = DateTime.fromJSDate(params.now, { zone: "utc" }).startOf("month");
  const [allocation, spentRows] = await Promise.all([
    getMonthAllocation(db, params.organizationId, monthStart.toFormat("yyyy-MM")),
    db
      .select({ spent: sql<number>`coalesce(sum(${creditTransactions.credits}), 0)::int` })
      .from(creditTransactions)
      .where(
        and(
          eq(creditTransactions.organizationId, params.organizationId),
          gte(creditTransactions.createdAt, monthStart.toJSDate()),
          lt(creditTransactions.createdAt, monthStart.plus({ months: 1 }).toJSDate()),
        ),
      ),
  ]);
  return allocation - (spentRows[0]?.spent ?? 0);
}

/**
 * 402 INSUFFICIENT_CREDITS unless the remaining credits cover 1 credit per accepted contact (DESIGN §5).
 * Enrollment checks, it does not reserve: credits are charged per call.
 */
export async function assertCreditsFor(db: DbOrTx, params: { organizationId: string; contacts: number; now: Date }): Promise<void> {
  const remaining = await getRemainingCredits(db, params);
  if (remaining < params.contacts) {
    throw new AppError(
      "INSUFFICIENT_CREDITS",
      `Not enough credits: ${params.contacts} needed (1 per accepted contact), ${Math.max(0, remaining)} remaining this month.`,
      { required: params.contacts, remaining: Math.max(0, remaining) },
    );
  }
}

/** The numbers (E.164) among `phoneNumbers` that opted out in this organization. */
export async function findOptedOutNumbers(db: DbOrTx, params: { organizationId: string; phoneNumbers: string[] }): Promise<Set<string>> {
  if (params.phoneNumbers.length === 0) return new Set();
  const rows = await db
    .select({ phoneNumber: optOuts.phoneNumber })
    .from(optOuts)
    .where(and(eq(optOuts.organizationId, params.organizationId), inArray(optOuts.phoneNumber, [...new Set(params.phoneNumbers)])));
  return new Set(rows.map((row) => row.phoneNumber));
}

/** The organization's settings enrollment applies: title-casing allowed, consent records required. */
export async function getEnrollmentSettings(db: DbOrTx, organizationId: string): Promise<{ titleCaseAllowlisted: boolean; requireConsent: boolean }> {
  const [row] = await db
    .select({ titleCaseAllowlisted: organizations.titleCaseAllowlisted, requireConsent: organizations.requireConsent })
    .from(organizations)
    .where(eq(organizations.id, organizationId));
  return row ?? { titleCaseAllowlisted: false, requireConsent: false };
}
