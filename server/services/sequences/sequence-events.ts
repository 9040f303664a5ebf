/** Events the enrollment and cancel services send after their transaction committed. */
export type SequenceEvent =
  | { name: "sequence/started"; data: { sequenceId: string } }
  | { name: "sequence/cancelled"; data: { sequenceId: string } }
  | { name: "sequence/bulk.accepted"; data: { batchId: string } };

/**
 * Sends events after commit. A failed send never fails the request that committed: the database is the source of
 * truth (due calls are found by their `scheduledAt`, stalled batches are picked up again by the resume sweep).
 */
export async function sendSequenceEvents(events: SequenceEvent[]): Promise<void> {
  if (events.length === 0) return;
  // Wired to the Inngest client once inngest/client.ts exists (issue 3).
}

export const startedEvents = (sequenceIds: string[]): SequenceEvent[] =>
  sequenceIds.map((sequenceId) => ({ name: "sequence/started", data: { sequenceId } }));

export const cancelledEvents = (sequenceIds: string[]): SequenceEvent[] =>
  sequenceIds.map((sequenceId) => ({ name: "sequence/cancelled", data: { sequenceId } }));
