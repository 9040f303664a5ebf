import { and, eq, inArray, isNotNull, max, or, sql } from "drizzle-orm";
import type { DbOrTx, Tx } from "@/db";
import { calls, sequenceMessages, sequences } from "@/db/schema";
import { newId } from "@/server/ids";
import { recordMessageEvent } from "@/server/services/events/record-message-event";
import { newMessageId } from "./message-steps";
import { MESSAGE_RECIPIENT_OF, messageChannelOf } from "./step-kinds";

export type EndSequencesOfContactParams = {
  organizationId: string;
  /** The contact by number (an SMS STOP, an opt-out in a callback)… */
  phoneNumber?: string;
  /** …or by email address (an unsubscribe), compared without letter case. */
  email?: string;
  /** Only these sequences (a reply that ends its own sequence). */
  sequenceIds?: string[];
  now: Date;
  /** Why, in words: recorded on every skipped step ("Skipped: <reason>."). */
  reason: string;
};

type SequenceRow = typeof sequences.$inferSelect;

/**
 * Ends the contact's sequences that are still in progress in the organization as `done` (docs/sequences.md "One
 * lifecycle": an opt-out on any channel ends the sequence, and so may a reply): every step not started yet is kept and
 * recorded as skipped — a `Scheduled` call becomes `Cancelled` with the reason as its summary, a scheduled (or
 * retrying) message `skipped` with the reason, and the steps after the last one the runner created (it creates a step
 * only when the one before ends) are recorded the same way now. Steps in flight finish and keep their results; the
 * runner never plans a step of a sequence that is not in progress, so no step is recorded twice. In the caller's
 * transaction; returns the sequences it ended. After commit, the caller announces the skipped messages
 * (announceSkippedMessages).
 */
export async function endSequencesOfContact(tx: Tx, params: EndSequencesOfContactParams): Promise<string[]> {
  const { now } = params;
  if (!params.phoneNumber && !params.email && !params.sequenceIds) return [];
  const rows = await tx
    .select()
    .from(sequences)
    .where(
      and(
        eq(sequences.organizationId, params.organizationId),
        eq(sequences.lifecycleStatus, "in progress"),
        params.phoneNumber ? eq(sequences.phoneNumber, params.phoneNumber) : undefined,
        params.email ? sql`lower(${sequences.toEmailAddress}) = ${params.email.toLowerCase()}` : undefined,
        params.sequenceIds ? inArray(sequences.id, params.sequenceIds.length > 0 ? params.sequenceIds : [""]) : undefined,
      ),
    )
    .for("update");
  const ids = rows.map((row) => row.id);
  if (ids.length === 0) return [];
  const skipped = `Skipped: ${params.reason}.`;
  await tx
    .update(calls)
    .set({ resultType: "Cancelled", summary: skipped, updatedAt: now })
    .where(and(inArray(calls.sequenceId, ids), inArray(calls.resultType, ["Scheduled", "Rescheduled"])));
  await tx
    .update(sequenceMessages)
    .set({ status: "skipped", error: skipped, nextAttemptAt: null, updatedAt: now })
    .where(
      and(
        inArray(sequenceMessages.sequenceId, ids),
        eq(sequenceMessages.direction, "outbound"),
        or(eq(sequenceMessages.status, "scheduled"), and(eq(sequenceMessages.status, "failed"), isNotNull(sequenceMessages.nextAttemptAt))),
      ),
    );
  await recordStepsNotCreated(tx, { sequences: rows, summary: skipped, now });
  await tx.update(sequences).set({ lifecycleStatus: "done", endedAt: now, updatedAt: now }).where(inArray(sequences.id, ids));
  return ids;
}

/**
 * The steps of these sequences after the last one that has a record (a call of the step, or its message) — the ones
 * the runner would have created later — recorded as skipped: a CALL as a `Cancelled` call with the summary, an EMAIL or
 * SMS as a `skipped` message with it as the reason.
 */
async function recordStepsNotCreated(tx: Tx, params: { sequences: SequenceRow[]; summary: string; now: Date }): Promise<void> {
  const { now, summary } = params;
  const ids = params.sequences.map((sequence) => sequence.id);
  const [callSteps, messageSteps] = await Promise.all([
    tx
      .select({ sequenceId: calls.sequenceId, last: max(calls.stepNumber) })
      .from(calls)
      .where(and(inArray(calls.sequenceId, ids), eq(calls.direction, "outbound")))
      .groupBy(calls.sequenceId),
    tx
      .select({ sequenceId: sequenceMessages.sequenceId, last: max(sequenceMessages.stepNumber) })
      .from(sequenceMessages)
      .where(and(inArray(sequenceMessages.sequenceId, ids), eq(sequenceMessages.direction, "outbound")))
      .groupBy(sequenceMessages.sequenceId),
  ]);
  const lastRecorded = new Map<string, number>();
  for (const row of [...callSteps, ...messageSteps]) {
    if (row.sequenceId) lastRecorded.set(row.sequenceId, Math.max(lastRecorded.get(row.sequenceId) ?? 0, row.last ?? 0));
  }
  const callRows: (typeof calls.$inferInsert)[] = [];
  const messageRows: (typeof sequenceMessages.$inferInsert)[] = [];
  for (const sequence of params.sequences) {
    sequence.steps.forEach((step, index) => {
      const stepNumber = index + 1;
      if (stepNumber <= (lastRecorded.get(sequence.id) ?? 0)) return;
      const base = { organizationId: sequence.organizationId, agentId: sequence.agentId, sequenceId: sequence.id, stepNumber, scheduledAt: now, createdAt: now, updatedAt: now };
      const channel = messageChannelOf(step.stepType);
      if (!channel) {
        callRows.push({ ...base, id: newId("call"), attempt: 1, resultType: "Cancelled", summary });
        return;
      }
      messageRows.push({
        ...base,
        id: newMessageId(),
        channel,
        direction: "outbound",
        status: "skipped",
        error: summary,
        nextAttemptAt: null,
        toAddress: MESSAGE_RECIPIENT_OF[channel](sequence),
      });
    });
  }
  // The unique (sequence, step[, attempt]) indexes: a step is never recorded twice.
  if (callRows.length > 0) await tx.insert(calls).values(callRows).onConflictDoNothing();
  if (messageRows.length > 0) await tx.insert(sequenceMessages).values(messageRows).onConflictDoNothing();
}

/**
 * After commit: the skipped messages of sequences just ended enter the events feed as `email.skipped` /
 * `sms.skipped` (once per message: the feed's unique message and type).
 */
export async function announceSkippedMessages(db: DbOrTx, params: { sequenceIds: string[]; now: Date }): Promise<void> {
  if (params.sequenceIds.length === 0) return;
  const skipped = await db
    .select()
    .from(sequenceMessages)
    .where(and(inArray(sequenceMessages.sequenceId, params.sequenceIds), eq(sequenceMessages.direction, "outbound"), eq(sequenceMessages.status, "skipped")))
    .orderBy(sequenceMessages.stepNumber);
  for (const message of skipped) await recordMessageEvent(db, { type: `${message.channel}.skipped`, message, now: params.now });
}
