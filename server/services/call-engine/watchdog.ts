import { and, asc, eq, inArray, isNotNull, isNull, lt, lte, or, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { calls } from "@/db/schema";
import { getConfig } from "@/server/config/env";

/** A call may stay `Calling` this long after the provider's last sign of life (the engine's longest call plus a margin). */
export function callingTimeoutSeconds(maxCallWallSeconds: number): number {
  return getConfig().CALL_WATCHDOG_CALLING_TIMEOUT_SECONDS ?? maxCallWallSeconds + 120;
}

/** An analysis that started this long ago and has not finished is given up (default 10 minutes). */
export function analysisTimeoutSeconds(): number {
  return getConfig().CALL_WATCHDOG_ANALYSIS_TIMEOUT_SECONDS;
}

export type StuckCall = { callId: string; resultType: string };

/**
 * Calls that are lost, not late, oldest first (the in-flight set is small: `calls_in_flight_idx`):
 * - `Calling`, accepted by the provider, with no sign of life from it (placement, then each provider event) for
 *   `callingTimeoutSeconds`. A call still waiting for its dial slot or for the provider to accept it is not here: the
 *   dispatcher retries and ends those.
 * - `Processing Analysis` whose analysis *started* more than `analysisTimeoutSeconds` ago and never finished (a retry
 *   restarts the clock). A call whose analysis has not started yet is waiting in the queue — backlog, not loss — and
 *   is never failed for it (see `findUnstartedAnalyses`).
 */
export async function findStuckCalls(
  db: DbOrTx,
  params: { now: Date; callingTimeoutSeconds: number; analysisTimeoutSeconds: number; limit?: number; organizationIds?: string[] },
): Promise<StuckCall[]> {
  const callingCutoff = new Date(params.now.getTime() - params.callingTimeoutSeconds * 1000);
  const analysisCutoff = new Date(params.now.getTime() - params.analysisTimeoutSeconds * 1000);
  return db
    .select({ callId: calls.id, resultType: calls.resultType })
    .from(calls)
    .where(
      and(
        inArray(calls.resultType, ["Calling", "Processing Analysis"]),
        params.organizationIds ? inArray(calls.organizationId, params.organizationIds) : undefined,
        or(
          and(
            eq(calls.resultType, "Calling"),
            isNotNull(calls.providerCallId),
            sql`greatest(${calls.dialedAt}, ${calls.providerEventAt}) < ${callingCutoff.toISOString()}::timestamptz`,
          ),
          and(eq(calls.resultType, "Processing Analysis"), lt(calls.analysisStartedAt, analysisCutoff)),
        ),
      ),
    )
    .orderBy(asc(calls.updatedAt))
    .limit(params.limit ?? 500);
}

/**
 * `Processing Analysis` calls whose analysis has not started `analysisTimeoutSeconds` after the provider reported the
 * end: either the queue is that long, or their `call/ended` was lost. They are not failed; the watchdog asks for their
 * analysis again (an analysis that is merely queued does nothing twice: the call is finalized once).
 */
export async function findUnstartedAnalyses(
  db: DbOrTx,
  params: { now: Date; analysisTimeoutSeconds: number; limit?: number; organizationIds?: string[] },
): Promise<string[]> {
  const cutoff = new Date(params.now.getTime() - params.analysisTimeoutSeconds * 1000);
  const rows = await db
    .select({ callId: calls.id })
    .from(calls)
    .where(
      and(
        eq(calls.resultType, "Processing Analysis"),
        isNull(calls.analysisStartedAt),
        lt(calls.updatedAt, cutoff),
        params.organizationIds ? inArray(calls.organizationId, params.organizationIds) : undefined,
      ),
    )
    .orderBy(asc(calls.updatedAt))
    .limit(params.limit ?? 500);
  return rows.map((row) => row.callId);
}

/**
 * The next batch of due calls: `Scheduled` and due at or before `dueBefore`, earliest first. Served by the partial
 * index `calls_due_idx (scheduled_at) WHERE result_type = 'Scheduled'`: an index range scan that reads only the
 * batch, however many calls are scheduled for later (the dispatcher's claim runs the same scan with `SKIP LOCKED`).
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
