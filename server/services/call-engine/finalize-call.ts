import { eq } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { calls, optOuts, sequences, type CallAction, type LifecycleStatus, type ResultType } from "@/db/schema";
import type { AnalysisResult } from "@/server/analysis/types";
import { getLogger } from "@/server/observability/logger";
import { recordCallFinished } from "@/server/observability/metrics";
import { inCpuStage } from "@/server/observability/stage-cpu";
import { failedCallAnalysis } from "./analyze-call";
import { announceSkippedMessages, endSequencesOfContact } from "@/server/services/sequences/end-sequences-of-contact";
import { scheduleNextStep } from "@/server/services/sequences/message-steps";
import { messageChannelOf } from "@/server/services/sequences/step-kinds";
import { findExtractionDefinitions } from "./call-context";
import { chargeCall, humanLegSecondsOf } from "./charging";
import { sequenceMoveFor } from "./lifecycle";
import { evaluateNumberHealthAfterCall, type EvaluateNumberHealthParams } from "@/server/services/numbers/health/evaluate-number-health";
import { numberCallOf, recordNumberCall } from "@/server/services/numbers/health/record-number-stats";

export type FinalizeCallParams = {
  callId: string;
  analysis: AnalysisResult;
  now: Date;
  /** The states the call may be finalized from (default: `Processing Analysis`). */
  from?: ResultType[];
  random?: () => number;
  /**
   * The call's number (docs/numbers.md "Number health"): `count-and-judge` (default) counts the call on its number's
   * day in this transaction and judges the number after commit; `none` leaves both to the caller, for callers that
   * finalize inside a longer transaction of their own (the demo history: the number's day row and monitor would be
   * held across calls of several days, serializing or deadlocking its parallel transactions). It then counts the
   * calls with recordNumberCallsOf once committed.
   */
  numberHealth?: "count-and-judge" | "none";
};

export type FinalizeCallOutcome =
  | { finalized: false; callId: string; resultType: ResultType | null }
  | {
      finalized: true;
      callId: string;
      sequenceId: string;
      organizationId: string;
      resultType: ResultType;
      lifecycleStatus: LifecycleStatus;
      credits: number;
      /** The sequence's next call, created Scheduled in the same transaction. */
      nextCall: { callId: string; stepNumber: number; scheduledAt: string } | null;
      /** The sequence's next step when it is an EMAIL or SMS, created `scheduled` in the same transaction. */
      nextMessage: { messageId: string; stepNumber: number; scheduledAt: string } | null;
      /** The sequence belongs to a chain and this call did not reach Goal Completed: hand over to the next contact. */
      chainHandOver: boolean;
      /** The contact's sequences an opt-out during a callback ended (their steps not started recorded as skipped). */
      endedSequenceIds: string[];
    };

/** Actions recorded during the call (the calendar tool's booking attempt) are kept; the analyser's are added. */
export function mergeActions(during: CallAction[], analysed: CallAction[]): CallAction[] {
  const keys = new Set(during.map((item) => item.actionKey));
  return [...during, ...analysed.filter((item) => !keys.has(item.actionKey))];
}

/**
 * Writes a call's final result and everything that follows from it, in one transaction (sequence, then call,
 * locked): the analysis fields and final resultType; the credit charge (exactly once, DESIGN §5); an `Opted Out`
 * number on the organization's suppression list; the sequence's lifecycle move (`done`/`failed`, or the next call
 * step created `Scheduled` with its due time); whether the contact chain hands over; the call on its number's day
 * (number_daily_stats). After commit, the number is judged on the call (docs/numbers.md). Only from the expected state:
 * a second finalization of the same call (a retried step, the watchdog racing the analyser) changes nothing and
 * returns `finalized: false`, so `call/analyzed` is sent once per call.
 */
export function finalizeCall(db: DbOrTx, params: FinalizeCallParams): Promise<FinalizeCallOutcome> {
  return inCpuStage("finalize", () => finalizeCallNow(db, params));
}

async function finalizeCallNow(db: DbOrTx, params: FinalizeCallParams): Promise<FinalizeCallOutcome> {
  const { outcome, numberCall } = await finalizeInTransaction(db, params);
  if (numberCall) {
    // After commit, once per call: the number's health is judged on it (docs/numbers.md "Number health"). A failure
    // here is logged, never the call's: its result is written and a retried step would not judge it again.
    await evaluateNumberHealthAfterCall(db, numberCall).catch((error: unknown) =>
      getLogger("numbers").error({ callId: outcome.callId, error: error instanceof Error ? error.message : String(error) }, "number health evaluation failed"),
    );
  }
  if (outcome.finalized) {
    await announceSkippedMessages(db, { sequenceIds: outcome.endedSequenceIds, now: params.now });
    // After commit: counted and logged once per call (a second finalization is `finalized: false`).
    recordCallFinished({ resultType: outcome.resultType, credits: outcome.credits });
    getLogger("call-engine").info(
      { callId: outcome.callId, sequenceId: outcome.sequenceId, result: outcome.resultType, credits: outcome.credits, lifecycleStatus: outcome.lifecycleStatus, nextCallId: outcome.nextCall?.callId },
      "call finished",
    );
  }
  return outcome;
}

type FinalizedInTransaction = { outcome: FinalizeCallOutcome; numberCall: EvaluateNumberHealthParams | null };

function finalizeInTransaction(db: DbOrTx, params: FinalizeCallParams): Promise<FinalizedInTransaction> {
  const { callId, analysis, now } = params;
  const from = params.from ?? ["Processing Analysis"];
  const unchanged = (resultType: ResultType | null): FinalizedInTransaction => ({ outcome: { finalized: false, callId, resultType }, numberCall: null });
  return db.transaction(async (tx): Promise<FinalizedInTransaction> => {
    const [located] = await tx.select({ sequenceId: calls.sequenceId }).from(calls).where(eq(calls.id, callId)).limit(1);
    if (!located) return unchanged(null);
    const [sequence] = await tx.select().from(sequences).where(eq(sequences.id, located.sequenceId)).for("update");
    const [call] = await tx.select().from(calls).where(eq(calls.id, callId)).for("update");
    if (!sequence || !call) return unchanged(null);
    if (!from.includes(call.resultType)) return unchanged(call.resultType);

    const resultType: ResultType = analysis.resultType;
    const endedAt = call.endedAt ?? now;
    const agentActions = mergeActions(call.agentActions, analysis.agentActions);
    await tx
      .update(calls)
      .set({
        resultType,
        summary: analysis.summary,
        extractedVariables: analysis.extractedVariables,
        outcomes: analysis.outcomes,
        agentActions,
        humanActions: analysis.humanActions,
        endedAt,
        analyzedAt: now,
        updatedAt: now,
      })
      .where(eq(calls.id, callId));

    const credits = await chargeCall(tx, {
      organizationId: call.organizationId,
      agentId: call.agentId,
      callId,
      resultType,
      durationSeconds: call.duration,
      humanLegSeconds: humanLegSecondsOf(agentActions),
      chargedAt: endedAt,
    });

    if (resultType === "Opted Out") {
      await tx
        .insert(optOuts)
        .values({ organizationId: call.organizationId, phoneNumber: sequence.phoneNumber, sourceCallId: callId, createdAt: now })
        .onConflictDoNothing();
    }

    let lifecycleStatus = sequence.lifecycleStatus;
    let nextCall: { callId: string; stepNumber: number; scheduledAt: string } | null = null;
    let nextMessage: { messageId: string; stepNumber: number; scheduledAt: string } | null = null;
    // A cancelled (or otherwise finished) sequence keeps its status: an in-flight call still gets its result. An
    // inbound call (a callback) is no step of the sequence: it never moves it on.
    if (sequence.lifecycleStatus === "in progress" && call.direction === "outbound") {
      const move = sequenceMoveFor(resultType);
      // Goal Completed ends the calling, not the EMAIL/SMS steps after it (docs/sequences.md "One lifecycle").
      const messagesLeft = resultType === "Goal Completed" && sequence.steps.slice(call.stepNumber).some((step) => messageChannelOf(step.stepType) !== null);
      if (move.kind === "end" && !messagesLeft) {
        lifecycleStatus = move.lifecycleStatus;
        await tx.update(sequences).set({ lifecycleStatus, endedAt: now, updatedAt: now }).where(eq(sequences.id, sequence.id));
      } else {
        // The next step of any type (CALL, EMAIL, SMS), or `done` when none is left (server/services/sequences/message-steps.ts).
        const next = await scheduleNextStep(tx, {
          sequence,
          afterStepNumber: call.stepNumber,
          endedAt,
          now,
          random: params.random,
          fallbackPromptVersionId: call.promptVersionId,
        });
        if (next.kind === "call") nextCall = { callId: next.callId, stepNumber: next.stepNumber, scheduledAt: next.scheduledAt.toISOString() };
        else if (next.kind === "message") nextMessage = { messageId: next.messageId, stepNumber: next.stepNumber, scheduledAt: next.scheduledAt.toISOString() };
        else lifecycleStatus = "done";
      }
    }
    let endedSequenceIds: string[] = [];
    if (resultType === "Opted Out" && call.direction === "inbound") {
      // An opt-out during a callback ends the contact's sequences like an opt-out on any channel.
      endedSequenceIds = await endSequencesOfContact(tx, { organizationId: call.organizationId, phoneNumber: sequence.phoneNumber, now, reason: "the contact opted out during a call" });
      if (endedSequenceIds.includes(sequence.id)) lifecycleStatus = "done";
    }

    // The number it was placed from: one more call on its counters of the day (number_daily_stats). Last, so the
    // day row — shared by every call of the number that day — stays locked only until this commit.
    const counted = params.numberHealth === "none" ? null : numberCallOf(call, { resultType, contactPhoneNumber: sequence.phoneNumber, timezone: sequence.timezone, now });
    if (counted) await recordNumberCall(tx, counted);
    const numberCall: EvaluateNumberHealthParams | null = counted
      ? { organizationId: counted.organizationId, phoneNumber: counted.phoneNumber, stratum: counted.stratum, outcome: counted.outcome, now }
      : null;

    return {
      outcome: {
        finalized: true,
        callId,
        sequenceId: sequence.id,
        organizationId: call.organizationId,
        resultType,
        lifecycleStatus,
        credits,
        nextCall,
        nextMessage,
        // A callback is no step of the chain's current contact: it hands nothing over.
        chainHandOver: sequence.groupKey !== null && resultType !== "Goal Completed" && call.direction === "outbound",
        endedSequenceIds,
      },
      numberCall,
    };
  });
}

/**
 * Finishes a call the engine gives up on as `Failed` (the watchdog; a dial that failed for good), with the same
 * consequences as any final result. Only from `Calling` or `Processing Analysis`.
 */
export async function failCall(db: DbOrTx, params: { callId: string; now: Date; reason: string }): Promise<FinalizeCallOutcome> {
  const [call] = await db.select({ agentId: calls.agentId }).from(calls).where(eq(calls.id, params.callId)).limit(1);
  if (!call) return { finalized: false, callId: params.callId, resultType: null };
  const definitions = await findExtractionDefinitions(db, call.agentId);
  return finalizeCall(db, {
    callId: params.callId,
    analysis: failedCallAnalysis(definitions, params.reason),
    now: params.now,
    from: ["Calling", "Processing Analysis"],
  });
}
