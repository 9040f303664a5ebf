import { and, eq, inArray, sql } from "drizzle-orm";
import type { Db } from "@/db";
import { calls, sequences } from "@/db/schema";
import { activateNextChainedContact } from "./activate-next-chained-contact";
import { cancelledEvents, sendSequenceEvents, startedEvents } from "./sequence-events";

export type CancelSequencesByReferenceParams = {
  organizationId: string;
  /** Name of a custom input variable. */
  referenceKey: string;
  referenceValue: string;
  now: Date;
};

/** Calls not dialed yet: they become `Cancelled` (a call already in flight finishes; nothing more is dialed). */
const PENDING_RESULT_TYPES = ["Scheduled", "Rescheduled"] as const;

/**
 * POST /sequences/cancel. Cancels every in-progress sequence of the organization whose custom input variable
 * `referenceKey` equals `referenceValue` (waiting chained contacts included); done, cancelled and failed ones are
 * left alone, so repeating the call changes nothing. Their pending calls become `Cancelled`.
 * A cancelled chain member that was active hands over to the chain's next waiting contact (when that one is not
 * cancelled too), so the rest of its group is not stranded.
 * After commit: `sequence/cancelled` per cancelled sequence (their runners stop through cancelOn) and
 * `sequence/started` per contact activated by a hand-over.
 */
export async function cancelSequencesByReference(db: Db, params: CancelSequencesByReferenceParams) {
  const result = await cancelMatchingSequences(db, params);
  await sendSequenceEvents([...cancelledEvents(result.cancelledSequenceIds), ...startedEvents(result.activatedSequenceIds)]);
  return { success: true as const, ...result };
}

/** The cancellation without its events (one transaction); the caller announces after commit. */
export async function cancelMatchingSequences(
  db: Db,
  params: CancelSequencesByReferenceParams,
): Promise<{ cancelledSequenceIds: string[]; activatedSequenceIds: string[] }> {
  const { now } = params;
  const match = JSON.stringify({ [params.referenceKey]: params.referenceValue });
  return db.transaction(async (tx) => {
    // `@>` on the jsonb column uses its GIN (jsonb_path_ops) index.
    const cancelled = await tx
      .update(sequences)
      .set({ lifecycleStatus: "cancelled", endedAt: now, updatedAt: now })
      .where(
        and(
          eq(sequences.organizationId, params.organizationId),
          eq(sequences.lifecycleStatus, "in progress"),
          sql`${sequences.customInputVariables} @> ${match}::jsonb`,
        ),
      )
      .returning({ id: sequences.id, groupKey: sequences.groupKey, chainStatus: sequences.chainStatus });
    const ids = cancelled.map((row) => row.id);
    if (ids.length > 0) {
      await tx
        .update(calls)
        .set({ resultType: "Cancelled", updatedAt: now })
        .where(and(inArray(calls.sequenceId, ids), inArray(calls.resultType, [...PENDING_RESULT_TYPES])));
    }
    const activated: string[] = [];
    for (const row of cancelled) {
      if (!row.groupKey || row.chainStatus !== "active") continue;
      const handOver = await activateNextChainedContact(tx, { sequenceId: row.id, now });
      if (handOver.newlyActivated && handOver.activated) activated.push(handOver.activated.sequenceId);
    }
    return { cancelledSequenceIds: ids, activatedSequenceIds: activated };
  });
}
