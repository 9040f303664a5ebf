import { and, asc, eq, inArray, isNotNull, lt, lte, or } from "drizzle-orm";
import type { Db } from "@/db";
import { sequenceMessages, sequences } from "@/db/schema";
import { scheduleNextStep, type NextStep } from "@/server/services/sequences/message-steps";
import { recordMessageEvent } from "@/server/services/events/record-message-event";

export type DueMessage = { messageId: string; at: string };

/** Scheduled (or retrying) messages of these sequences, with when each is due: what `sequence/started` announces. */
export async function findPendingMessagesOfSequences(db: Db, sequenceIds: string[]): Promise<DueMessage[]> {
  if (sequenceIds.length === 0) return [];
  const rows = await db
    .select({ id: sequenceMessages.id, at: sequenceMessages.nextAttemptAt })
    .from(sequenceMessages)
    .where(and(inArray(sequenceMessages.sequenceId, sequenceIds), isNotNull(sequenceMessages.nextAttemptAt), inArray(sequenceMessages.status, ["scheduled", "failed"])));
  return rows.map((row) => ({ messageId: row.id, at: row.at!.toISOString() }));
}

/** Messages due before `until` (the sweep: a lost announcement is at most one period late). */
export async function findDueMessages(db: Db, params: { until: Date; organizationIds?: string[]; limit?: number }): Promise<DueMessage[]> {
  const rows = await db
    .select({ id: sequenceMessages.id, at: sequenceMessages.nextAttemptAt })
    .from(sequenceMessages)
    .where(
      and(
        isNotNull(sequenceMessages.nextAttemptAt),
        lte(sequenceMessages.nextAttemptAt, params.until),
        inArray(sequenceMessages.status, ["scheduled", "failed"]),
        params.organizationIds ? inArray(sequenceMessages.organizationId, params.organizationIds) : undefined,
      ),
    )
    .orderBy(asc(sequenceMessages.nextAttemptAt))
    .limit(params.limit ?? 1000);
  return rows.map((row) => ({ messageId: row.id, at: row.at!.toISOString() }));
}

/** A message left `sending` longer than this was interrupted (its sender died before recording the result). */
export const INTERRUPTED_SEND_MS = 10 * 60_000;

/**
 * Messages left `sending` by a sender that died: `failed` as interrupted — never sent again, since the send may have
 * happened — and their sequences move on. Returns the next steps planned.
 */
export async function failInterruptedSends(db: Db, params: { now: Date; organizationIds?: string[] }): Promise<NextStep[]> {
  const { now } = params;
  const stale = await db
    .select({ id: sequenceMessages.id, sequenceId: sequenceMessages.sequenceId })
    .from(sequenceMessages)
    .where(
      and(
        eq(sequenceMessages.status, "sending"),
        lt(sequenceMessages.updatedAt, new Date(now.getTime() - INTERRUPTED_SEND_MS)),
        params.organizationIds ? inArray(sequenceMessages.organizationId, params.organizationIds) : undefined,
      ),
    )
    .limit(100);
  const next: NextStep[] = [];
  for (const row of stale) {
    if (!row.sequenceId) continue;
    const outcome = await db.transaction(async (tx) => {
      const [sequence] = await tx.select().from(sequences).where(eq(sequences.id, row.sequenceId!)).for("update");
      const [message] = await tx
        .update(sequenceMessages)
        .set({ status: "failed", error: "Interrupted while sending; not sent again, as it may have left.", nextAttemptAt: null, updatedAt: now })
        .where(and(eq(sequenceMessages.id, row.id), or(eq(sequenceMessages.status, "sending"))))
        .returning();
      if (!message || !sequence || sequence.lifecycleStatus !== "in progress") return { message, step: null };
      return { message, step: await scheduleNextStep(tx, { sequence, afterStepNumber: message.stepNumber!, endedAt: now, now }) };
    });
    if (outcome.message) await recordMessageEvent(db, { type: `${outcome.message.channel}.failed`, message: outcome.message, now });
    if (outcome.step) next.push(outcome.step);
  }
  return next;
}
