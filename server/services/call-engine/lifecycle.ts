import type { AgentStep, LifecycleStatus, ResultType } from "@/db/schema";
import { computeStepDueAt } from "@/server/services/scheduling/compute-step-due-at";

/**
 * What a call's final result does to its sequence (DESIGN §5): Goal Completed and Opted Out end it as `done`,
 * Invalid Phone Number as `failed`; every other result (Goal Not Completed, Voicemail, Busy, No Conversation,
 * Failed) moves on to the next step, and the sequence is `done` when no step is left.
 */
export function sequenceMoveFor(resultType: ResultType): { kind: "end"; lifecycleStatus: LifecycleStatus } | { kind: "next-step" } {
  switch (resultType) {
    case "Goal Completed":
    case "Opted Out":
      return { kind: "end", lifecycleStatus: "done" };
    case "Invalid Phone Number":
      return { kind: "end", lifecycleStatus: "failed" };
    default:
      return { kind: "next-step" };
  }
}

export type PlanNextCallParams = {
  steps: AgentStep[];
  /** 1-based position of the step that just ended. */
  afterStepNumber: number;
  /** When that step's call ended (delays count from here). */
  previousEndedAt: Date;
  contactTimezone: string;
  agentTimezone: string;
  bypassCallWindows: boolean;
  now: Date;
  random?: () => number;
};

/**
 * The next CALL step after `afterStepNumber` and when it is due, with the same scheduling rules as enrollment
 * (`computeStepDueAt`: delay + jitter, day offset, calling window in the step's zone, DST-correct). Steps that are
 * not calls (EMAIL) are not executed by the call engine: they are taken to happen when due and the next step's
 * delay counts from then. Null when no call step is left.
 */
export function planNextCall(params: PlanNextCallParams): { stepNumber: number; dueAt: Date } | null {
  let previousEndedAt = params.previousEndedAt;
  for (let index = params.afterStepNumber; index < params.steps.length; index += 1) {
    const step = params.steps[index]!;
    const dueAt = computeStepDueAt({
      step,
      previousEndedAt,
      contactTimezone: params.contactTimezone,
      agentTimezone: params.agentTimezone,
      bypassCallWindows: params.bypassCallWindows,
      now: params.now,
      random: params.random,
    });
    if (step.stepType === "CALL") return { stepNumber: index + 1, dueAt };
    previousEndedAt = dueAt;
  }
  return null;
}
