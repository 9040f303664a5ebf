import { and, asc, eq, inArray, isNull } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { calls } from "@/db/schema";
import { getConfig } from "@/server/config/env";
import type { VoiceEngine } from "@/server/voice/types";
import type { DialCandidate, DialCheck } from "./dial-gate";
import { dialPlanningHorizonMs } from "./dial-rate";
import { failCall } from "./finalize-call";
import { limiter } from "@/server/runtime/limiter";
import { claimOnce } from "./dispatch-claim";
import { admitDueCalls } from "./dispatch-admission";
import { getLogger } from "@/server/observability/logger";
import { recordDispatchAdmission } from "@/server/observability/metrics";
import { MAX_DIAL_ATTEMPTS, dialRetryDelayMs, logDialed, recordPlacements, refusedReason } from "./dial-placement";
import { PlaceRequestCache, prepareRequest } from "./place-call-request";

/**
 * The dispatcher's step (`dispatchDueCalls`: claims pipelined with the placements at their slots, holds kept out of
 * recovery's reach, placements recorded in batches) and the sweep's lookup (`findNextDialableAt`).
 */

export type DispatchParams = {
  /** The dispatcher's clock (tests inject a simulated one); `dialedAt` is read from it when each call is placed. */
  clock: () => Date;
  voiceEngine: VoiceEngine;
  /** Due calls examined per claim at most, all organizations together (default 500; each organization gets its capacity). */
  limit?: number;
  /** Only these organizations (tests sharing a database); undefined: all. */
  organizationIds?: string[];
  /** Calls placed at once (default 16; calls waiting for their slot do not count). */
  placeConcurrency?: number;
  /** Waits until a moment (a call's slot, the next claim); by default sleeps (in real time) for its distance from `clock()`. */
  waitUntil?: (at: Date) => Promise<void>;
  /**
   * How long the step keeps claiming (default `CALL_DISPATCH_STEP_BUDGET_MS`); 0: one claim. A claim only starts when
   * `clock()` has reached its moment, so a `waitUntil` that does not move the clock ends the step after one claim.
   */
  budgetMs?: number;
  checks?: DialCheck[];
};

export type DispatchResult = {
  /** Calls the voice engine accepted in this step. */
  dialed: number;
  /** Claims made in this step (each: lock the due calls that can get a slot, run the gate, commit). */
  claims: number;
  /** Calls that ended `Failed` because the provider kept refusing them: announce them like any final result. */
  failedCallIds: string[];
  /** Sequences of a contact chain that ended without a call (opted out at dial time): hand the chain over. */
  handOverSequenceIds: string[];
  cancelled: number;
  deferred: number;
  /** Verdicts "wait" (rate slots beyond the horizon, a check that said wait), counted per claim. */
  waiting: number;
  /** Claims that took no new call because the analysis backlog was at its bound (backpressure; recovery still ran). */
  heldBack: number;
  /** Ended calls awaiting analysis at the last claim's measurement (at most the bound + 1); null: backpressure off. */
  backlog: number | null;
  /** The earliest moment something may be dialable again (a due call, a retry, a waiting call), null: nothing known. */
  nextAt: string | null;
};

function sleepUntil(clock: () => Date): (at: Date) => Promise<void> {
  return (at) => {
    const ms = at.getTime() - clock().getTime();
    return ms > 0 ? new Promise((resolve) => setTimeout(resolve, Math.min(ms, 10_000))) : Promise.resolve();
  };
}

/**
 * A claimed call this step has not recorded as placed yet is "touched" (`updated_at`) when its claim is older than
 * this (checked every `HOLD_CHECK_MS` of real time, whatever the step is doing), so recovery (which takes a claimed,
 * unplaced call `dialRetryDelayMs(1)` = 10 s after its last change) never places a call a running step still holds
 * (a slow provider, a long queue of placements, a starved process).
 */
const HOLD_REFRESH_MS = 3_000;
const HOLD_CHECK_MS = 1_000;

/**
 * The dispatcher's step (DESIGN §5, docs/call-engine.md "The dispatcher"): for up to `budgetMs`, a pipeline of claims
 * and placements.
 *
 * - **Backpressure** (`admitDueCalls`): before each claim, the ended calls awaiting analysis are counted; the claim
 *   examines at most the room left under `CALL_DISPATCH_MAX_ANALYSIS_BACKLOG`, none at the bound (recovery still runs).
 * - **Claim** (one transaction): recovery first (calls claimed earlier that the voice engine never accepted are placed
 *   again with the same idempotency key after a backoff; after `MAX_DIAL_ATTEMPTS` the call ends `Failed`); then the
 *   due calls that can get a slot within the horizon (`claimableCallIds`: per organization, its capacity), locked with
 *   `FOR UPDATE SKIP LOCKED` (concurrent dispatchers never take the same call), the dial gate over them, the dialable
 *   ones `Scheduled` → `Calling` with their planned `dialSlotAt`.
 * - **Placement**: each claimed call is placed at its slot (at most `placeConcurrency` placements at once; waiting for
 *   a slot takes no place), and accepted placements are recorded (`dialedAt`, provider call ID) in small batches as they
 *   come, while the next claims go on.
 * - The next claim starts when half the horizon is spent (so the next horizon's slots are planned before the current
 *   one's are placed), or when the gate says something becomes dialable, whichever is later; the step returns when its
 *   budget is spent or nothing is dialable within the horizon, after its placements are recorded, with the next moment
 *   something may be dialable.
 */
export async function dispatchDueCalls(db: DbOrTx, params: DispatchParams): Promise<DispatchResult> {
  const { clock } = params;
  const startedAt = clock().getTime();
  const limit = params.limit ?? 500;
  const horizonMs = dialPlanningHorizonMs();
  const deadline = startedAt + (params.budgetMs ?? getConfig().CALL_DISPATCH_STEP_BUDGET_MS);
  const scope = params.organizationIds ? inArray(calls.organizationId, params.organizationIds) : undefined;
  const waitUntil = params.waitUntil ?? sleepUntil(clock);
  const placeSlot = limiter(params.placeConcurrency ?? 16);
  const result: DispatchResult = { dialed: 0, claims: 0, failedCallIds: [], handOverSequenceIds: [], cancelled: 0, deferred: 0, waiting: 0, heldBack: 0, backlog: null, nextAt: null };
  /** Retries of calls the engine refused in this step (they are not seen by the claims' recovery until then). */
  let retryAt = Infinity;
  const cache = new PlaceRequestCache();

  /** Claimed by this step, not recorded as placed yet: call ID → when its claim was last refreshed. */
  const held = new Map<string, number>();
  const tasks = new Set<Promise<void>>();
  let fatal: { error: unknown } | null = null;
  const toRecord: Array<{ callId: string; providerCallId: string; placedAt: Date }> = [];
  let recording: Promise<void> | null = null;

  /** Records what was accepted, in batches as it comes (one statement per batch; provider call IDs land promptly). */
  const record = (): Promise<void> => {
    if (recording) return recording;
    if (toRecord.length === 0) return Promise.resolve();
    recording = (async () => {
      try {
        while (toRecord.length > 0) {
          const batch = toRecord.splice(0, toRecord.length);
          await recordPlacements(db, batch);
          for (const placement of batch) held.delete(placement.callId);
          result.dialed += batch.length;
        }
      } catch (error) {
        fatal ??= { error };
      }
    })().finally(() => {
      recording = null;
      if (toRecord.length > 0 && !fatal) void record();
    });
    return recording;
  };

  const place = (row: Pick<DialCandidate, "call" | "sequence" | "agent">, slotAt: Date) => {
    held.set(row.call.id, clock().getTime());
    const task = (async () => {
      // Prepared while the slot is still ahead (reads, the disclosures' audit trail): at the slot, only the provider.
      const prepared = prepareRequest(db, cache, row);
      prepared.catch(() => {}); // awaited, and its failure handled, at the slot
      await waitUntil(slotAt);
      if (fatal) return;
      await placeSlot(async () => {
        try {
          const request = await prepared;
          const placedAt = clock();
          const placed = await params.voiceEngine.placeCall(request);
          toRecord.push({ callId: row.call.id, providerCallId: placed.providerCallId, placedAt });
          if (!placed.alreadyPlaced) logDialed(row, placedAt, slotAt);
        } catch (error) {
          held.delete(row.call.id);
          const message = error instanceof Error ? error.message : String(error);
          if (row.call.dialAttempts >= MAX_DIAL_ATTEMPTS) {
            const outcome = await failCall(db, { callId: row.call.id, now: clock(), reason: refusedReason(message) });
            if (outcome.finalized) result.failedCallIds.push(row.call.id);
          } else {
            retryAt = Math.min(retryAt, clock().getTime() + dialRetryDelayMs(row.call.dialAttempts));
          }
        }
      });
      void record();
    })()
      .catch((error: unknown) => {
        fatal ??= { error };
      })
      .finally(() => tasks.delete(task));
    tasks.add(task);
  };

  /** Keeps the calls this step holds out of recovery's reach (see HOLD_REFRESH_MS). */
  const refreshHolds = async () => {
    const now = clock().getTime();
    const stale = [...held].filter(([, at]) => now - at >= HOLD_REFRESH_MS).map(([callId]) => callId);
    if (stale.length === 0) return;
    await db
      .update(calls)
      .set({ updatedAt: new Date(now) })
      .where(and(inArray(calls.id, stale), eq(calls.resultType, "Calling"), isNull(calls.providerCallId)));
    for (const callId of stale) if (held.has(callId)) held.set(callId, now);
  };

  let refreshing: Promise<void> | null = null;
  const holdTimer = setInterval(() => {
    refreshing ??= refreshHolds()
      .catch(() => {}) // the next check tries again; a lost hold only means an idempotent second placement
      .finally(() => (refreshing = null));
  }, HOLD_CHECK_MS);
  let nextAt = Infinity;
  try {
    for (;;) {
      await refreshHolds();
      // Backpressure: the claim examines at most the room left under the analysis backlog's bound (0: none).
      const admission = await admitDueCalls(db, { limit, organizationIds: params.organizationIds });
      const now = clock();
      const claim = await claimOnce(db, { now, limit: admission.limit, horizonMs, scope, organizationIds: params.organizationIds, checks: params.checks, held: [...held.keys()], engine: params.voiceEngine.kind });
      result.claims += 1;
      if (admission.backlog !== null) {
        result.backlog = admission.backlog;
        const effect = admission.limit === 0 ? "held" : admission.limit < limit && claim.examined >= admission.limit ? "lowered" : null;
        recordDispatchAdmission({ backlog: admission.backlog, effect });
        if (effect === "held" && result.heldBack++ === 0) {
          getLogger("call-engine").info({ backlog: admission.backlog, bound: admission.bound }, "dispatch held back: ended calls await analysis");
        }
      }
      for (const callId of claim.failed) {
        const outcome = await failCall(db, { callId, now, reason: refusedReason(`no answer from the voice engine after ${MAX_DIAL_ATTEMPTS} attempts`) });
        if (outcome.finalized) result.failedCallIds.push(callId);
      }
      for (const row of claim.retry) place(row, now);
      for (const { candidate, slotAt } of claim.gate.claimed) place(candidate, slotAt);
      result.cancelled += claim.gate.cancelled.length;
      result.deferred += claim.gate.deferred.length;
      result.waiting += claim.gate.waiting.length;
      result.handOverSequenceIds.push(...claim.gate.cancelled.filter((item) => item.endedSequence && item.chained).map((item) => item.sequenceId));
      nextAt = Math.min(claim.nextAt, retryAt);
      if (fatal) break;
      // Something dialable within the horizon: claim again when half of it is spent (the next slots come at the
      // rate's pace; calls another dispatcher holds are its own) or later when the gate says so; at once only when this
      // claim did nothing but move or cancel calls and more are due (a backlog of calls deferred to quiet hours).
      if (nextAt > now.getTime() + horizonMs) break;
      const onlyMoved =
        claim.gate.claimed.length === 0 && claim.gate.waiting.length === 0 && claim.retry.length === 0 && claim.gate.cancelled.length + claim.gate.deferred.length > 0;
      const claimAt = onlyMoved ? nextAt : Math.max(nextAt, now.getTime() + horizonMs / 2);
      if (claimAt >= deadline) break;
      if (claimAt > clock().getTime()) {
        await waitUntil(new Date(claimAt));
        // The wait did not move the clock (a test's clock, a waitUntil that does not wait): the step ends here.
        if (clock().getTime() < claimAt - 5) break;
      }
    }
  } finally {
    // The step ends only when every call it claimed was placed (or refused) and recorded.
    try {
      while (tasks.size > 0) await Promise.all([...tasks]);
      while (recording || (toRecord.length > 0 && !fatal)) await record();
    } finally {
      clearInterval(holdTimer);
      await refreshing;
    }
  }
  const failure = fatal as { error: unknown } | null;
  if (failure) throw failure.error;
  nextAt = Math.min(nextAt, retryAt);
  result.nextAt = Number.isFinite(nextAt) ? new Date(nextAt).toISOString() : null;
  return result;
}

/**
 * The earliest moment anything may be dialable (the sweep's one look): the next `Scheduled` call (`calls_due_idx`,
 * one index entry) or a claimed call the voice engine has not accepted yet (its last change: the retry waits from
 * there; `calls_in_flight_idx`). Null: nothing to dial.
 */
export async function findNextDialableAt(db: DbOrTx, params: { organizationIds?: string[] }): Promise<Date | null> {
  const scope = params.organizationIds ? inArray(calls.organizationId, params.organizationIds) : undefined;
  const [scheduled] = await db
    .select({ at: calls.scheduledAt })
    .from(calls)
    .where(and(eq(calls.resultType, "Scheduled"), scope))
    .orderBy(asc(calls.scheduledAt))
    .limit(1);
  const [unplaced] = await db
    .select({ at: calls.updatedAt })
    .from(calls)
    .where(and(eq(calls.resultType, "Calling"), isNull(calls.providerCallId), scope))
    .orderBy(asc(calls.updatedAt))
    .limit(1);
  const times = [scheduled?.at, unplaced?.at].filter((at): at is Date => at !== undefined).map((at) => at.getTime());
  return times.length > 0 ? new Date(Math.min(...times)) : null;
}
