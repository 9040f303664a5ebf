import { and, asc, eq } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { agents, calls, sequences } from "@/db/schema";
import { newId } from "@/server/ids";
import { lockChains } from "@/server/services/enrollment/create-sequences";
import { planFirstCall } from "@/server/services/scheduling/compute-step-due-at";

export type ActivateNextChainedContactParams = {
  /** The group member whose call just ended without Goal Completed (or that was cancelled while active). */
  sequenceId: string;
  now?: Date;
  random?: () => number;
};

export type ActivateNextChainedContactResult = {
  /** The contact now scheduled, or null when the chain has nobody waiting (or the sequence is not chained). */
  activated: { sequenceId: string; callId: string; scheduledAt: Date } | null;
  /** False when this sequence had already handed over (a repeated call): nothing changed, send no event. */
  newlyActivated: boolean;
};

/**
 * Contact chaining hand-over (spec: "the rest activate when an earlier call in the same group does not reach a
 * successful outcome"). Called by the call engine when a chained sequence's call ends without Goal Completed.
 * Schedules the chain's next waiting contact (lowest position still in progress): it becomes `active`, gets its
 * first call record (`Scheduled`, due per its steps from now, or its own future `scheduledAt`), and records who
 * handed over to it.
 *
 * Each sequence hands over at most once, so calling it again for the same sequence (a retried step) returns the
 * contact it activated before with `newlyActivated: false`. Runs in its own transaction (a savepoint when given
 * one). It sends no event: the caller sends `sequence/started` for `activated.sequenceId` after commit when
 * `newlyActivated` (from an Inngest function: `step.sendEvent`).
 */
export async function activateNextChainedContact(
  db: DbOrTx,
  params: ActivateNextChainedContactParams,
): Promise<ActivateNextChainedContactResult> {
  const now = params.now ?? new Date();
  return db.transaction(async (tx) => {
    const [current] = await tx
      .select({ agentId: sequences.agentId, groupKey: sequences.groupKey })
      .from(sequences)
      .where(eq(sequences.id, params.sequenceId));
    if (!current?.groupKey) return { activated: null, newlyActivated: false };
    await lockChains(tx, current.agentId, [current.groupKey]);

    const [previous] = await tx
      .select({ id: sequences.id })
      .from(sequences)
      .where(eq(sequences.chainActivatedBy, params.sequenceId));
    if (previous) {
      const [call] = await tx
        .select({ id: calls.id, scheduledAt: calls.scheduledAt })
        .from(calls)
        .where(eq(calls.sequenceId, previous.id))
        .orderBy(asc(calls.stepNumber), asc(calls.attempt))
        .limit(1);
      return {
        activated: call ? { sequenceId: previous.id, callId: call.id, scheduledAt: call.scheduledAt } : null,
        newlyActivated: false,
      };
    }

    const [next] = await tx
      .select()
      .from(sequences)
      .where(
        and(
          eq(sequences.agentId, current.agentId),
          eq(sequences.groupKey, current.groupKey),
          eq(sequences.chainStatus, "waiting"),
          eq(sequences.lifecycleStatus, "in progress"),
        ),
      )
      .orderBy(asc(sequences.chainPosition))
      .limit(1);
    if (!next) return { activated: null, newlyActivated: false };

    const [agent] = await tx
      .select({ timezones: agents.timezones, promptVersionId: agents.currentPromptVersionId })
      .from(agents)
      .where(eq(agents.id, next.agentId));
    const plan = planFirstCall({
      steps: next.steps,
      contactTimezone: next.timezone,
      agentTimezone: agent?.timezones[0] ?? "UTC",
      bypassCallWindows: next.bypassCallWindows,
      scheduledAt: next.scheduledAt && next.scheduledAt > now ? next.scheduledAt : null,
      now,
      random: params.random,
    });
    await tx
      .update(sequences)
      .set({ chainStatus: "active", chainActivatedBy: params.sequenceId, updatedAt: now })
      .where(eq(sequences.id, next.id));
    if (!plan) return { activated: null, newlyActivated: false };
    const callId = newId("call");
    await tx.insert(calls).values({
      id: callId,
      organizationId: next.organizationId,
      agentId: next.agentId,
      sequenceId: next.id,
      stepNumber: plan.stepNumber,
      attempt: 1,
      scheduledAt: plan.dueAt,
      resultType: "Scheduled",
      promptVersionId: agent?.promptVersionId ?? null,
      createdAt: now,
      updatedAt: now,
    });
    return { activated: { sequenceId: next.id, callId, scheduledAt: plan.dueAt }, newlyActivated: true };
  });
}
