import type { LifecycleStatus, ResultType } from "@/db/schema";
import { planCallStep, type CallPlan, type PlanCallStepParams } from "@/server/services/scheduling/compute-step-due-at";

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

export type PlanNextCallParams = Omit<PlanCallStepParams, "previousEndedAt" | "scheduledAt"> & {
  /** When the step that just ended (`afterStepNumber`) ended: delays count from here. */
  previousEndedAt: Date;
};

/** The next CALL step after the one that just ended, with the same scheduling rules as enrollment (planCallStep). */
export function planNextCall(params: PlanNextCallParams): CallPlan | null {
  return planCallStep(params);
}
