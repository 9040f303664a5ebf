import { eq } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { calls } from "@/db/schema";
import type { VoiceEngine } from "@/server/voice/types";
import { runDialGate, type DialCandidate, type DialCheck } from "./dial-gate";
import { applyGate, lockCandidates } from "./dial-claim";
import { placeOne, refusedReason } from "./dial-placement";
import { failCall } from "./finalize-call";
import { PlaceRequestCache } from "./place-call-request";

/**
 * `dialDueCall`: one due call dialed at most once, unpaced (the demo seeder; tests). Also the call engine's dialing
 * entry point: it re-exports the dispatcher (dispatch-due-calls.ts) and the request builder (place-call-request.ts),
 * so importers keep one path.
 */

export { pausedRecheckSeconds } from "./dial-gate";
export { MAX_DIAL_ATTEMPTS, dialRetryDelayMs } from "./dial-placement";
export { buildPlaceCallRequest } from "./place-call-request";
export { dispatchDueCalls, findNextDialableAt, type DispatchParams, type DispatchResult } from "./dispatch-due-calls";

export type DialDueCallParams = {
  callId: string;
  now: Date;
  voiceEngine: VoiceEngine;
  /**
   * When the voice engine refuses the call: `throw` (default) or `fail-call` (the call ends as `Failed` — a provider
   * error — and the sequence moves on like after any failed call).
   */
  onPlaceError?: "throw" | "fail-call";
  /** The dial gate's checks (default: all of them, `dialChecks`). */
  checks?: DialCheck[];
};

export type DialOutcome =
  | { status: "dialed"; callId: string; providerCallId: string; alreadyPlaced: boolean }
  /** Already past dialing (Calling, Processing Analysis or final): nothing was done. */
  | { status: "in-flight"; callId: string; resultType: string }
  /** Not dialed now; the call is (still) Scheduled and due at `until`. */
  | { status: "deferred"; callId: string; until: string; reason: string }
  /** The voice engine refused the call for good: it ended as `Failed` (announce it like any final result). */
  | { status: "failed"; callId: string; message: string }
  /** Not dialed and never will be: the call became Cancelled (or was). */
  | { status: "skipped"; callId: string; reason: string; sequenceId?: string; chained?: boolean };

/**
 * Dials one due call, at most once, without pacing (the demo seeder; tests). The same gate as the dispatcher, in one
 * transaction with the call and its sequence locked — sequence still in progress, not opted out, agent ACTIVE, inside
 * the step's window — then `Scheduled` → `Calling`; the voice engine is called after commit with the callId as its
 * idempotency key. A `Calling` call the engine has not accepted yet is placed again with the same key.
 */
export async function dialDueCall(db: DbOrTx, params: DialDueCallParams): Promise<DialOutcome> {
  const { callId, now } = params;
  type Claim = { kind: "place"; candidate: DialCandidate } | { kind: "done"; outcome: DialOutcome };
  const claim = await db.transaction(async (tx): Promise<Claim> => {
    const [candidate] = await lockCandidates(tx, eq(calls.id, callId), { limit: 1, skipLocked: false });
    if (!candidate) return { kind: "done", outcome: { status: "skipped", callId, reason: "not-found" } };
    const { call } = candidate;
    if (call.resultType === "Calling" && !call.providerCallId) return { kind: "place", candidate };
    if (call.resultType !== "Scheduled" && call.resultType !== "Rescheduled") {
      return { kind: "done", outcome: { status: "in-flight", callId, resultType: call.resultType } };
    }
    const { verdicts, slots } = await runDialGate({ tx, now, paced: false, engine: params.voiceEngine.kind }, [candidate], params.checks);
    const applied = await applyGate(tx, [candidate], verdicts, slots, now);
    const [cancelled] = applied.cancelled;
    if (cancelled) return { kind: "done", outcome: { status: "skipped", callId, reason: cancelled.reason, sequenceId: cancelled.sequenceId, chained: cancelled.chained } };
    const [deferred] = applied.deferred;
    if (deferred) return { kind: "done", outcome: { status: "deferred", callId, until: deferred.until.toISOString(), reason: deferred.reason } };
    if (applied.waiting.length > 0) return { kind: "done", outcome: { status: "deferred", callId, until: now.toISOString(), reason: "waiting" } };
    return { kind: "place", candidate: applied.claimed[0]!.candidate };
  });
  if (claim.kind === "done") return claim.outcome;
  const placed = await placeOne(db, claim.candidate, params.voiceEngine, now, new PlaceRequestCache());
  if (placed.ok) return { status: "dialed", callId, providerCallId: placed.providerCallId, alreadyPlaced: placed.alreadyPlaced };
  if (params.onPlaceError !== "fail-call") throw placed.error;
  await failCall(db, { callId, now, reason: refusedReason(placed.message) });
  return { status: "failed", callId, message: placed.message };
}
