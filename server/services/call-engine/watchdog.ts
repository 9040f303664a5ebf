import { and, asc, eq, inArray, lt, lte, or, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { calls } from "@/db/schema";
import { getConfig } from "@/server/config/env";

/** A call may stay `Calling` this long (the voice engine's longest call plus a margin) before it is failed. */
export function callingTimeoutSeconds(maxCallWallSeconds: number): number {
  return getConfig().CALL_WATCHDOG_CALLING_TIMEOUT_SECONDS ?? maxCallWallSeconds + 120;
}

/** A call may stay `Processing Analysis` this long before it is failed (default 10 minutes). */
export function analysisTimeoutSeconds(): number {
  return getConfig().CALL_WATCHDOG_ANALYSIS_TIMEOUT_SECONDS;
}

/** A `Scheduled` call this far past due has lost its runner: the sweep dials it (default 2 minutes). */
export function overdueGraceSeconds(): number {
  return getConfig().CALL_OVERDUE_GRACE_SECONDS;
}

export type StuckCall = { callId: string; resultType: string };

/** Calls stuck in `Calling` or `Processing Analysis` past their timeout, oldest first (`calls_in_flight_idx`). */
export async function findStuckCalls(
  db: DbOrTx,
  params: { now: Date; callingTimeoutSeconds: number; analysisTimeoutSeconds: number; limit?: number; organizationIds?: string[] },
): Promise<StuckCall[]> {
  const callingCutoff = new Date(params.now.getTime() - params.callingTimeoutSeconds * 1000);
  const analysisCutoff = new Date(params.now.getTime() - params.analysisTimeoutSeconds * 1000);
  const latest = callingCutoff > analysisCutoff ? callingCutoff : analysisCutoff;
  const rows = await db
    .select({ callId: calls.id, resultType: calls.resultType })
    .from(calls)
    .where(
      and(
        inArray(calls.resultType, ["Calling", "Processing Analysis"]),
        lt(calls.updatedAt, latest),
        params.organizationIds ? inArray(calls.organizationId, params.organizationIds) : undefined,
        or(
          and(eq(calls.resultType, "Calling"), lt(calls.updatedAt, callingCutoff)),
          and(eq(calls.resultType, "Processing Analysis"), lt(calls.updatedAt, analysisCutoff)),
        ),
      ),
    )
    .orderBy(asc(calls.updatedAt))
    .limit(params.limit ?? 500);
  return rows;
}

/**
 * The next batch of due calls: `Scheduled` and due at or before `dueBefore`, earliest first. Served by the partial
 * index `calls_due_idx (scheduled_at) WHERE result_type = 'Scheduled'`: an index range scan that reads only the
 * batch, however many calls are scheduled for later. `skipLocked` lets several dispatchers share the work.
 */
export async function findDueCalls(
  db: DbOrTx,
  params: { dueBefore: Date; limit: number; organizationIds?: string[] },
): Promise<Array<{ callId: string; scheduledAt: Date }>> {
  return db
    .select({ callId: calls.id, scheduledAt: calls.scheduledAt })
    .from(calls)
    .where(
      and(
        eq(calls.resultType, "Scheduled"),
        lte(calls.scheduledAt, params.dueBefore),
        params.organizationIds ? inArray(calls.organizationId, params.organizationIds) : undefined,
      ),
    )
    .orderBy(asc(calls.scheduledAt))
    .limit(params.limit);
}

/** The SQL of the due-batch query, for EXPLAIN in the benchmark. */
export const dueCallsSql = (dueBefore: Date, limit: number) =>
  sql`select id, scheduled_at from calls where result_type = 'Scheduled' and scheduled_at <= ${dueBefore.toISOString()}::timestamptz order by scheduled_at limit ${limit}`;
