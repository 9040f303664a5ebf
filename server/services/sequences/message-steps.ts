import { and, eq } from "drizzle-orm";
import type { Tx } from "@/db";
import { agents, calls, sequenceMessages, sequences, type MessageChannel } from "@/db/schema";
import { newId } from "@/server/ids";
import { planNextStep } from "@/server/services/scheduling/compute-step-due-at";
import { MESSAGE_RECIPIENT_OF, messageChannelOf } from "./step-kinds";

export function newMessageId(): string {
  return newId("message");
}

type SequenceRow = typeof sequences.$inferSelect;

export type NextStep =
  | { kind: "call"; sequenceId: string; callId: string; stepNumber: number; scheduledAt: Date }
  | { kind: "message"; sequenceId: string; messageId: string; stepNumber: number; scheduledAt: Date; channel: MessageChannel }
  | { kind: "end"; sequenceId: string };

export type ScheduleNextStepParams = {
  /** The sequence, locked by the caller's transaction and still `in progress`. */
  sequence: SequenceRow;
  /** The step that just ended (1-based). */
  afterStepNumber: number;
  /** When it ended: the next step's delay counts from here. */
  endedAt: Date;
  now: Date;
  random?: () => number;
  /** The prompt version a next call uses when the agent has none (the ended call's). */
  fallbackPromptVersionId?: string | null;
};

/**
 * The sequence runner's one rule for every step type (docs/sequences.md "One lifecycle"): after a step ends, the next
 * step of any type is created with its due time — a CALL as a `Scheduled` call, an EMAIL or SMS as a `scheduled`
 * message — or, when no step is left, the sequence ends `done`. Runs in the caller's transaction (the sequence row
 * locked), so a step is planned once.
 */
export async function scheduleNextStep(tx: Tx, params: ScheduleNextStepParams): Promise<NextStep> {
  const { sequence, now } = params;
  const [agent] = await tx
    .select({ timezones: agents.timezones, currentPromptVersionId: agents.currentPromptVersionId })
    .from(agents)
    .where(eq(agents.id, sequence.agentId))
    .limit(1);
  // After a Goal Completed call only EMAIL and SMS steps run (a confirmation with the meeting link is their point);
  // the CALL steps left are recorded as skipped (finalize-call ends the sequence at once when no message step is left).
  const goalCompleted = (await tx.select({ id: calls.id }).from(calls).where(and(eq(calls.sequenceId, sequence.id), eq(calls.resultType, "Goal Completed"))).limit(1)).length > 0;
  const end = async (): Promise<NextStep> => {
    await tx.update(sequences).set({ lifecycleStatus: "done", endedAt: now, updatedAt: now }).where(eq(sequences.id, sequence.id));
    return { kind: "end", sequenceId: sequence.id };
  };
  let afterStepNumber = params.afterStepNumber;
  let previousEndedAt = params.endedAt;
  let plan: ReturnType<typeof planNextStep> = null;
  for (;;) {
    plan = planNextStep({
      steps: sequence.steps,
      afterStepNumber,
      previousEndedAt,
      contactTimezone: sequence.timezone,
      agentTimezone: agent?.timezones[0] ?? sequence.timezone,
      bypassCallWindows: sequence.bypassCallWindows,
      now,
      random: params.random,
    });
    if (!plan || !(goalCompleted && plan.stepType === "CALL")) break;
    await tx.insert(calls).values({
      id: newId("call"),
      organizationId: sequence.organizationId,
      agentId: sequence.agentId,
      sequenceId: sequence.id,
      stepNumber: plan.stepNumber,
      attempt: 1,
      scheduledAt: plan.dueAt,
      resultType: "Cancelled",
      summary: "Skipped: the goal was completed in an earlier call.",
      createdAt: now,
      updatedAt: now,
    });
    afterStepNumber = plan.stepNumber;
    previousEndedAt = now;
  }
  if (!plan) return end();
  await tx.update(sequences).set({ updatedAt: now }).where(eq(sequences.id, sequence.id));
  const channel = messageChannelOf(plan.stepType);
  if (channel) {
    const messageId = newMessageId();
    await tx.insert(sequenceMessages).values({
      id: messageId,
      organizationId: sequence.organizationId,
      agentId: sequence.agentId,
      sequenceId: sequence.id,
      stepNumber: plan.stepNumber,
      channel,
      direction: "outbound",
      status: "scheduled",
      scheduledAt: plan.dueAt,
      nextAttemptAt: plan.dueAt,
      toAddress: MESSAGE_RECIPIENT_OF[channel](sequence),
      createdAt: now,
      updatedAt: now,
    });
    return { kind: "message", sequenceId: sequence.id, messageId, stepNumber: plan.stepNumber, scheduledAt: plan.dueAt, channel };
  }
  const callId = newId("call");
  await tx.insert(calls).values({
    id: callId,
    organizationId: sequence.organizationId,
    agentId: sequence.agentId,
    sequenceId: sequence.id,
    stepNumber: plan.stepNumber,
    attempt: 1,
    scheduledAt: plan.dueAt,
    resultType: "Scheduled",
    promptVersionId: agent?.currentPromptVersionId ?? params.fallbackPromptVersionId ?? null,
    createdAt: now,
    updatedAt: now,
  });
  return { kind: "call", sequenceId: sequence.id, callId, stepNumber: plan.stepNumber, scheduledAt: plan.dueAt };
}
