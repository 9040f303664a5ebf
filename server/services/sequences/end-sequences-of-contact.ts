import { and, eq, inArray, isNotNull, or, sql } from "drizzle-orm";
import type { Tx } from "@/db";
import { calls, sequenceMessages, sequences } from "@/db/schema";

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

/**
 * Ends the contact's sequences that are still in progress in the organization as `done` (docs/sequences.md "One
 * lifecycle": an opt-out on any channel ends the sequence, and so may a reply): their steps not started yet are kept
 * and recorded as skipped — a `Scheduled` call becomes `Cancelled` with the reason as its summary, a scheduled (or
 * retrying) message `skipped` with the reason. Steps in flight finish and keep their results. In the caller's
 * transaction; returns the sequences it ended.
 */
export async function endSequencesOfContact(tx: Tx, params: EndSequencesOfContactParams): Promise<string[]> {
  const { now } = params;
  if (!params.phoneNumber && !params.email && !params.sequenceIds) return [];
  const rows = await tx
    .select({ id: sequences.id })
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
  await tx.update(sequences).set({ lifecycleStatus: "done", endedAt: now, updatedAt: now }).where(inArray(sequences.id, ids));
  return ids;
}
