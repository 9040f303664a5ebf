import { and, eq, inArray, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { calls } from "@/db/schema";
import { getConfig } from "@/server/config/env";

/**
 * Backpressure (docs/call-engine.md "The dispatcher", "Backpressure"): before a claim the dispatcher measures the
 * work its dialing has left for the stages after it — ended calls waiting for their analysis and finalization
 * (`Processing Analysis`, which the `call/ended` → analysis → `call/analyzed` → webhooks chain drains) — and claims at
 * most what keeps that backlog under `CALL_DISPATCH_MAX_ANALYSIS_BACKLOG`. Admission only lowers the number of due
 * calls a claim examines; the dial-rate limits, per-number caps and concurrency caps are still the claim's own.
 */

export type Admission = {
  /** Due calls the claim may examine: the dispatcher's limit, lowered to the room left under the bound. */
  limit: number;
  /** Ended calls awaiting analysis as measured (at most bound + 1: the count stops there); null: the rule is off. */
  backlog: number | null;
  bound: number;
};

/**
 * One indexed count (`calls_analysis_backlog_idx`, a partial index of the `Processing Analysis` calls), stopped at
 * `cap` rows so a backlog of thousands costs no more than the bound. Measured in the database, so every instance's
 * dispatcher sees the backlog all instances' dialing made; `organizationIds` scopes it (tests sharing a database).
 */
export async function countAnalysisBacklog(db: DbOrTx, params: { cap: number; organizationIds?: string[] }): Promise<number> {
  const scope = params.organizationIds ? inArray(calls.organizationId, params.organizationIds) : undefined;
  const waiting = db
    .select({ id: calls.id })
    .from(calls)
    .where(and(eq(calls.resultType, "Processing Analysis"), scope))
    .limit(params.cap)
    .as("waiting");
  const [row] = await db.select({ count: sql<number>`count(*)::int` }).from(waiting);
  return row?.count ?? 0;
}

/**
 * How many due calls the next claim may examine (`limit` at most): the room left under the bound. 0 when the backlog
 * is at or above it — the claim takes no new call (recovery of calls claimed earlier still runs). A bound of 0 turns
 * the rule off (no query).
 */
export async function admitDueCalls(db: DbOrTx, params: { limit: number; organizationIds?: string[] }): Promise<Admission> {
  const bound = getConfig().CALL_DISPATCH_MAX_ANALYSIS_BACKLOG;
  if (bound === 0) return { limit: params.limit, backlog: null, bound };
  const backlog = await countAnalysisBacklog(db, { cap: bound + 1, organizationIds: params.organizationIds });
  return { limit: Math.min(params.limit, Math.max(0, bound - backlog)), backlog, bound };
}
