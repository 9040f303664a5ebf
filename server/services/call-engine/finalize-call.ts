import { eq } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { agents, calls, optOuts, sequences, type CallAction, type LifecycleStatus, type ResultType } from "@/db/schema";
import type { AnalysisResult } from "@/server/analysis/types";
import { newId } from "@/server/ids";
import { getLogger } from "@/server/observability/logger";
import { recordCallFinished } from "@/server/observability/metrics";
import { failedCallAnalysis } from "./analyze-call";
import { agentTimezoneOf, findExtractionDefinitions } from "./call-context";
import { chargeCall } from "./charging";
import { planNextCall, sequenceMoveFor } from "./lifecycle";

export type FinalizeCallParams = {
  callId: string;
  analysis: AnalysisResult;
  now: Date;
  /** The states the call may be finalized from (default: `Processing Analysis`). */
  from?: ResultType[];
  random?: () => number;
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
      /** The sequence belongs to a chain and this call did not reach Goal Completed: hand over to the next contact. */
      chainHandOver: boolean;
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
 * step created `Scheduled` with its due time); whether the contact chain hands over. Only from the expected state:
 * a second finalization of the same call (a retried step, the watchdog racing the analyser) changes nothing and
 * returns `finalized: false`, so `call/analyzed` is sent once per call.
 */
export async function finalizeCall(db: DbOrTx, params: FinalizeCallParams): Promise<FinalizeCallOutcome> {
  const outcome = await finalizeInTransaction(db, params);
  if (outcome.finalized) {
    // After commit: counted and logged once per call (a second finalization is `finalized: false`).
    recordCallFinished({ resultType: outcome.resultType, credits: outcome.credits });
    getLogger("call-engine").info(
      { callId: outcome.callId, sequenceId: outcome.sequenceId, result: outcome.resultType, credits: outcome.credits, lifecycleStatus: outcome.lifecycleStatus, nextCallId: outcome.nextCall?.callId },
      "call finished",
    );
  }
  return outcome;
}

function finalizeInTransaction(db: DbOrTx, params: FinalizeCallParams): Promise<FinalizeCallOutcome> {
  const { callId, analysis, now } = params;
  const from = params.from ?? ["Processing Analysis"];
  return db.transaction(async (tx): Promise<FinalizeCallOutcome> => {
    const [located] = await tx.select({ sequenceId: calls.sequenceId }).from(calls).where(eq(calls.id, callId)).limit(1);
    if (!located) return { finalized: false, callId, resultType: null };
    const [sequence] = await tx.select().from(sequences).where(eq(sequences.id, located.sequenceId)).for("update");
    const [call] = await tx.select().from(calls).where(eq(calls.id, callId)).for("update");
    if (!sequence || !call) return { finalized: false, callId, resultType: null };
    if (!from.includes(call.resultType)) return { finalized: false, callId, resultType: call.resultType };

    const resultType: ResultType = analysis.resultType;
    const endedAt = call.endedAt ?? now;
    await tx
      .update(calls)
      .set({
        resultType,
        summary: analysis.summary,
        extractedVariables: analysis.extractedVariables,
        outcomes: analysis.outcomes,
        agentActions: mergeActions(call.agentActions, analysis.agentActions),
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
    // A cancelled (or otherwise finished) sequence keeps its status: an in-flight call still gets its result.
    if (sequence.lifecycleStatus === "in progress") {
      const move = sequenceMoveFor(resultType);
      let plan: { stepNumber: number; dueAt: Date } | null = null;
      let promptVersionId: string | null = null;
      if (move.kind === "next-step") {
        const [agent] = await tx.select().from(agents).where(eq(agents.id, call.agentId)).limit(1);
        plan = planNextCall({
          steps: sequence.steps,
          afterStepNumber: call.stepNumber,
          previousEndedAt: endedAt,
          contactTimezone: sequence.timezone,
          agentTimezone: agent ? agentTimezoneOf(agent, sequence.timezone) : sequence.timezone,
          bypassCallWindows: sequence.bypassCallWindows,
          now,
          random: params.random,
        });
        promptVersionId = agent?.currentPromptVersionId ?? call.promptVersionId;
      }
      if (plan) {
        const id = newId("call");
        await tx.insert(calls).values({
          id,
          organizationId: call.organizationId,
          agentId: call.agentId,
          sequenceId: sequence.id,
          stepNumber: plan.stepNumber,
          attempt: 1,
          scheduledAt: plan.dueAt,
          resultType: "Scheduled",
          promptVersionId,
          createdAt: now,
          updatedAt: now,
        });
        nextCall = { callId: id, stepNumber: plan.stepNumber, scheduledAt: plan.dueAt.toISOString() };
        await tx.update(sequences).set({ updatedAt: now }).where(eq(sequences.id, sequence.id));
      } else {
        lifecycleStatus = move.kind === "end" ? move.lifecycleStatus : "done";
        await tx.update(sequences).set({ lifecycleStatus, endedAt: now, updatedAt: now }).where(eq(sequences.id, sequence.id));
      }
    }

    return {
      finalized: true,
      callId,
      sequenceId: sequence.id,
      organizationId: call.organizationId,
      resultType,
      lifecycleStatus,
      credits,
      nextCall,
      chainHandOver: sequence.groupKey !== null && resultType !== "Goal Completed",
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
