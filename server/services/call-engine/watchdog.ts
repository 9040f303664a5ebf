import { and, asc, eq, inArray, isNotNull, isNull, lt, lte, or, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { calls } from "@/db/schema";
import { getConfig } from "@/server/config/env";
import type { ProviderCallState } from "@/server/voice/types";

/** A call may stay `Calling` this long after the provider's last sign of life (the engine's longest call plus a margin). */
export function callingTimeoutSeconds(maxCallWallSeconds: number): number {
  return getConfig().CALL_WATCHDOG_CALLING_TIMEOUT_SECONDS ?? maxCallWallSeconds + 120;
}

/** An analysis that started this long ago and has not finished is given up (default 10 minutes). */
export function analysisTimeoutSeconds(): number {
  return getConfig().CALL_WATCHDOG_ANALYSIS_TIMEOUT_SECONDS;
}

/** After the provider says a call ended, how late its events may be before the call is ended from the provider's record. */
export function lateEventsSeconds(): number {
  return getConfig().CALL_WATCHDOG_LATE_EVENTS_SECONDS;
}

/**
 * A provider that cannot be asked about a call (its API down, the simulator's process restarting) makes the watchdog
 * wait: failing the call could redial a person still on the line. Past this long after the call's last sign of life
 * it is failed anyway (a day: longer than any call; its number is not left blocked for ever).
 */
export const UNVERIFIABLE_GIVE_UP_SECONDS = 24 * 3600;

export type StuckCall = {
  callId: string;
  resultType: string;
  providerCallId: string | null;
  /** The provider's last sign of life (placement, then each event). */
  lastSignOfLifeAt: Date;
};

/** What the watchdog does with a `Calling` call the provider has been silent on (docs/call-engine.md "Watchdog"). */
export type CallingVerdict =
  | { action: "wait"; reason: string }
  | { action: "fail"; reason: string }
  /** The provider ended it and its report is later than `lateEventsSeconds`: end it with the provider's result. */
  | { action: "end-from-provider"; state: Extract<ProviderCallState, { state: "ended" }> };

/**
 * The rule, given what the provider said of the call (`asked`: its state, or the error asking it threw). A call is
 * failed only when the provider has no record of it; one in the air waits however late its events are; one the
 * provider ended waits `lateEventsSeconds` for its report, then ends with the provider's own result.
 */
export function callingVerdict(
  asked: { ok: true; state: ProviderCallState } | { ok: false; error: string },
  params: { now: Date; lastSignOfLifeAt: Date; lateEventsSeconds: number; giveUpSeconds?: number },
): CallingVerdict {
  if (!asked.ok) {
    const silentSeconds = (params.now.getTime() - params.lastSignOfLifeAt.getTime()) / 1000;
    if (silentSeconds >= (params.giveUpSeconds ?? UNVERIFIABLE_GIVE_UP_SECONDS)) {
      return { action: "fail", reason: `The call failed: the voice provider never reported its end and could not be asked about it (${asked.error}).` };
    }
    return { action: "wait", reason: `the provider could not be asked: ${asked.error}` };
  }
  const { state } = asked;
  if (state.state === "active") return { action: "wait", reason: "the provider says the call is still in the air" };
  if (state.state === "unknown") return { action: "fail", reason: "The call failed: the voice provider never reported its end and has no record of the call." };
  const lateSeconds = (params.now.getTime() - new Date(state.endedAt).getTime()) / 1000;
  if (lateSeconds < params.lateEventsSeconds) return { action: "wait", reason: `the provider ended the call ${Math.max(0, Math.round(lateSeconds))} s ago; its report is on its way` };
  return { action: "end-from-provider", state };
}

/**
 * Calls that may be lost, oldest first (the in-flight set is small: `calls_in_flight_idx`):
 * - `Calling`, accepted by the provider, with no sign of life from it (placement, then each provider event) for
 *   `callingTimeoutSeconds`: the watchdog asks the provider about each (`callingVerdict`) before it fails any. A call
 *   still waiting for its dial slot or for the provider to accept it is not here: the dispatcher retries and ends
 *   those.
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
    .select({
      callId: calls.id,
      resultType: calls.resultType,
      providerCallId: calls.providerCallId,
      lastSignOfLifeAt: sql<Date>`greatest(${calls.dialedAt}, ${calls.providerEventAt}, ${calls.createdAt})`.mapWith((value: string | Date) => new Date(value)),
    })
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
