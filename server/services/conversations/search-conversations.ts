import { and, asc, countDistinct, eq, gte, lt, min, sql } from "drizzle-orm";
import { MAX_OFFSET, MAX_QUERY_YEAR, MAX_SEARCH_LIMIT, MIN_QUERY_YEAR } from "@/server/schemas/limits";
import type { DbOrTx } from "@/db";
import { calls } from "@/db/schema";
import { AppError } from "@/server/errors";
import { assertAgentInOrganization } from "@/db/queries/agents";

export const DEFAULT_SEARCH_LIMIT = 100;

export type SearchConversationsParams = {
  /** Verified organization of the caller. */
  organizationId: string;
  agentId: string;
  /** Zero-padded `YYYY-MM-DD`, UTC, inclusive from 00:00:00.000Z. */
  start: string;
  /** Zero-padded `YYYY-MM-DD`, UTC, inclusive through 23:59:59.999Z. */
  end: string;
  limit: number;
  offset: number;
};

export type SearchConversationsResult = {
  sequenceIds: string[];
  hasMore: boolean;
  total: number;
  limit: number;
  offset: number;
};

/**
 * `YYYY-MM-DD` → that UTC midnight; null unless it is a real calendar date written with zero padding, in the years
 * MIN_QUERY_YEAR to MAX_QUERY_YEAR.
 */
export function parseUtcDay(value: string): Date | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!match) return null;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (year < MIN_QUERY_YEAR || year > MAX_QUERY_YEAR) return null;
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return null;
  return date;
}

/**
 * Sequence IDs of the agent's conversations with at least one call step scheduled inside [start 00:00:00.000Z,
 * end 23:59:59.999Z]. Ordered by the sequence's earliest call time inside the window, then sequence ID — a total
 * order, so offset paging over unchanged data neither skips nor repeats. Raises AGENT_NOT_FOUND for an unknown
 * agent or one of another organization, INVALID_REQUEST for an impossible window.
 */
export async function searchConversations(db: DbOrTx, params: SearchConversationsParams): Promise<SearchConversationsResult> {
  const from = parseUtcDay(params.start);
  const endDay = parseUtcDay(params.end);
  if (!from) throw new AppError("INVALID_REQUEST", "start: must be a zero-padded UTC date YYYY-MM-DD.");
  if (!endDay) throw new AppError("INVALID_REQUEST", "end: must be a zero-padded UTC date YYYY-MM-DD.");
  if (endDay < from) throw new AppError("INVALID_REQUEST", "end: must not be before start.");
  if (!Number.isInteger(params.limit) || params.limit < 1 || params.limit > MAX_SEARCH_LIMIT) {
    throw new AppError("INVALID_REQUEST", `limit: must be an integer from 1 to ${MAX_SEARCH_LIMIT}.`);
  }
  if (!Number.isInteger(params.offset) || params.offset < 0 || params.offset > MAX_OFFSET) {
    throw new AppError("INVALID_REQUEST", `offset: must be an integer from 0 to ${MAX_OFFSET}.`);
  }
  // Half-open upper bound: everything up to and including 23:59:59.999999 of the end day, nothing of the next.
  // Computed by PostgreSQL: the day after 9999-12-31 is beyond what a JS Date serializes as a 4-digit year.
  const until = sql`(${params.end}::date + 1)::timestamp at time zone 'UTC'`;

  const inWindow = and(
    eq(calls.organizationId, params.organizationId),
    eq(calls.agentId, params.agentId),
    gte(calls.scheduledAt, from),
    lt(calls.scheduledAt, until),
  );
  const firstCallAt = min(calls.scheduledAt);
  const [, page, totals] = await Promise.all([
    assertAgentInOrganization(db, { organizationId: params.organizationId, agentId: params.agentId }),
    db
      .select({ sequenceId: calls.sequenceId })
      .from(calls)
      .where(inWindow)
      .groupBy(calls.sequenceId)
      .orderBy(asc(firstCallAt), asc(calls.sequenceId))
      .limit(params.limit + 1)
      .offset(params.offset),
    db.select({ total: countDistinct(calls.sequenceId) }).from(calls).where(inWindow),
  ]);

  const hasMore = page.length > params.limit;
  return {
    sequenceIds: page.slice(0, params.limit).map((row) => row.sequenceId),
    hasMore,
    total: totals[0]?.total ?? 0,
    limit: params.limit,
    offset: params.offset,
  };
}
