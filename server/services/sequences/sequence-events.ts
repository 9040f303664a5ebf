import { inngest } from "@/inngest/client";
import { sequenceBulkAccepted, sequenceCancelled, sequenceStarted } from "@/inngest/events";
import { getLogger } from "@/server/observability/logger";

/** Events the enrollment and cancel services send after their transaction committed. */
export type SequenceEvent =
  | { name: "sequence/started"; data: { sequenceId: string } }
  | { name: "sequence/cancelled"; data: { sequenceId: string } }
  | { name: "sequence/bulk.accepted"; data: { batchId: string } };

const SEND_CHUNK = 500;

function toPayload(event: SequenceEvent) {
  switch (event.name) {
    case "sequence/started":
      return sequenceStarted.create(event.data);
    case "sequence/cancelled":
      return sequenceCancelled.create(event.data);
    case "sequence/bulk.accepted":
      return sequenceBulkAccepted.create(event.data);
  }
}

/**
 * Sends events after commit (never from inside a transaction). A failed send never fails the request that
 * committed: the database is the source of truth — the call engine finds due calls by `scheduledAt`, and the
 * `resume-bulk-batches` sweep restarts batches whose event was lost.
 */
export async function sendSequenceEvents(events: SequenceEvent[]): Promise<void> {
  for (let start = 0; start < events.length; start += SEND_CHUNK) {
    const chunk = events.slice(start, start + SEND_CHUNK);
    try {
      await inngest.send(chunk.map(toPayload));
    } catch (error) {
      getLogger("enrollment").error({ events: chunk.length, name: chunk[0]!.name, err: error }, "could not send events; the database state stands");
    }
  }
}

export const startedEvents = (sequenceIds: string[]): SequenceEvent[] =>
  sequenceIds.map((sequenceId) => ({ name: "sequence/started", data: { sequenceId } }));

export const cancelledEvents = (sequenceIds: string[]): SequenceEvent[] =>
  sequenceIds.map((sequenceId) => ({ name: "sequence/cancelled", data: { sequenceId } }));
