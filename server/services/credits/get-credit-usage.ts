import { and, desc, eq, gte, lt, sql } from "drizzle-orm";
import { DateTime } from "luxon";
import type { DbOrTx } from "@/db";
import { agents, creditAllocations, creditTransactions, organizations } from "@/db/schema";
import { AppError } from "@/server/errors";
import { MIN_QUERY_YEAR } from "@/server/schemas/limits";

export type GetCreditUsageParams = {
  organizationId: string;
  month?: string;
  startDate?: string;
  endDate?: string;
  now: Date;
};

const MONTH_PATTERN = /^\d{4}-(0[1-9]|1[0-2])$/;
const DATE_PATTERN = /^\d{4}-\d{2}-\d{2}$/;
const MAX_RANGE_DAYS = 366;

function parseDay(value: string, field: string): DateTime {
  const day = DATE_PATTERN.test(value) ? DateTime.fromISO(value, { zone: "utc" }) : null;
  if (!day || !day.isValid) throw new AppError("INVALID_REQUEST", `${field} must be a valid date in YYYY-MM-DD format.`);
  if (day.year < MIN_QUERY_YEAR) throw new AppError("INVALID_REQUEST", `${field} must not be before ${MIN_QUERY_YEAR}-01-01.`);
  return day;
}

type Period =
  | { type: "month"; month: string; start: DateTime; endExclusive: DateTime }
  | { type: "range"; start: DateTime; endExclusive: DateTime };

/** Every validation rule of GET /credits/usage; each failure is a 400 INVALID_REQUEST naming the parameter. */
export function resolveCreditPeriod(params: Omit<GetCreditUsageParams, "organizationId">): Period {
  const today = DateTime.fromJSDate(params.now, { zone: "utc" }).startOf("day");
  const { month, startDate, endDate } = params;
  if (month !== undefined && (startDate !== undefined || endDate !== undefined)) {
    throw new AppError("INVALID_REQUEST", "month cannot be combined with startDate or endDate.");
  }
  if (startDate !== undefined || endDate !== undefined) {
    if (startDate === undefined) throw new AppError("INVALID_REQUEST", "endDate requires startDate.");
    if (endDate === undefined) throw new AppError("INVALID_REQUEST", "startDate requires endDate.");
    const start = parseDay(startDate, "startDate");
    const end = parseDay(endDate, "endDate");
    if (end > today) throw new AppError("INVALID_REQUEST", "endDate cannot be in the future.");
    if (start > end) throw new AppError("INVALID_REQUEST", "startDate must be on or before endDate.");
    const days = end.diff(start, "days").days + 1;
    if (days > MAX_RANGE_DAYS) throw new AppError("INVALID_REQUEST", `The range cannot exceed ${MAX_RANGE_DAYS} days.`);
    return { type: "range", start, endExclusive: end.plus({ days: 1 }) };
  }
  const monthValue = month ?? today.toFormat("yyyy-MM");
  if (!MONTH_PATTERN.test(monthValue)) throw new AppError("INVALID_REQUEST", "month must match YYYY-MM.");
  const start = DateTime.fromISO(`${monthValue}-01`, { zone: "utc" });
  if (start.year < MIN_QUERY_YEAR) throw new AppError("INVALID_REQUEST", `month must not be before ${MIN_QUERY_YEAR}-01.`);
  if (start > today.startOf("month")) throw new AppError("INVALID_REQUEST", "month cannot be in the future.");
  return { type: "month", month: monthValue, start, endExclusive: start.plus({ months: 1 }) };
}

export async function getCreditUsage(db: DbOrTx, params: GetCreditUsageParams) {
  const period = resolveCreditPeriod(params);
  const from = period.start.toJSDate();
  const to = period.endExclusive.toJSDate();
  const byAgent = await db
    .select({
      agentId: creditTransactions.agentId,
      agentName: agents.name,
      spentCredits: sql<number>`coalesce(sum(${creditTransactions.credits}), 0)::int`,
      transactionCount: sql<number>`count(*)::int`,
    })
    .from(creditTransactions)
    .leftJoin(agents, eq(agents.id, creditTransactions.agentId))
    .where(
      and(
        eq(creditTransactions.organizationId, params.organizationId),
        gte(creditTransactions.createdAt, from),
        lt(creditTransactions.createdAt, to),
      ),
    )
    .groupBy(creditTransactions.agentId, agents.name)
    .orderBy(desc(sql`2`), creditTransactions.agentId);

  const agentRows = byAgent
    .filter((row) => row.agentId !== null)
    .map((row) => ({
      agentId: row.agentId!,
      agentName: row.agentName ?? "",
      spentCredits: row.spentCredits,
      transactionCount: row.transactionCount,
    }))
    .sort((a, b) => b.spentCredits - a.spentCredits || a.agentId.localeCompare(b.agentId));
  const agentsTotal = agentRows.reduce((sum, row) => sum + row.spentCredits, 0);
  const endDate = period.endExclusive.minus({ days: 1 }).toISODate()!;

  if (period.type === "range") {
    return {
      period: { type: "range" as const, startDate: period.start.toISODate()!, endDate, month: null },
      organization: { allocatedCredits: null, spentCredits: agentsTotal, remainingCredits: null, percentageUsed: null },
      agents: agentRows,
    };
  }

  // Month mode: the organization figure counts every ledger row of the month (also rows whose agent was
  // deleted), so it is authoritative and may differ from the sum of agents[].
  const orgSpent = byAgent.reduce((sum, row) => sum + row.spentCredits, 0);
  const allocated = await getMonthAllocation(db, params.organizationId, period.month);
  return {
    period: { type: "month" as const, startDate: period.start.toISODate()!, endDate, month: period.month },
    organization: {
      allocatedCredits: allocated,
      spentCredits: orgSpent,
      remainingCredits: allocated - orgSpent,
      percentageUsed: allocated > 0 ? Math.round((orgSpent / allocated) * 10000) / 100 : 0,
    },
    agents: agentRows,
  };
}

export async function getMonthAllocation(db: DbOrTx, organizationId: string, month: string): Promise<number> {
  const rows = await db
    .select({ override: creditAllocations.credits, monthly: organizations.monthlyCreditAllocation })
    .from(organizations)
    .leftJoin(
      creditAllocations,
      and(eq(creditAllocations.organizationId, organizations.id), eq(creditAllocations.month, month)),
    )
    .where(eq(organizations.id, organizationId))
    .limit(1);
  const row = rows[0];
  return row?.override ?? row?.monthly ?? 0;
}
