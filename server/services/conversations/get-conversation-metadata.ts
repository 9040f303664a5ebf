import type { DbOrTx } from "@/db";
import { findCallMetadataRows } from "@/db/queries/calls";
import { findSequenceMessages, toSequenceMessage } from "@/db/queries/messages";
import { getSequenceOrThrow } from "@/db/queries/sequences";
import type { TSequenceMessage } from "@/server/schemas/message";
import type { TCallMetadata } from "@/server/schemas/call";
import { toCallMetadata } from "@/server/services/calls/call-metadata";
import { signableRecordingKey } from "@/server/services/recordings/recording-entries";
import { getRecordingStore, type RecordingStore } from "@/server/storage/recording-store";

export type GetConversationMetadataParams = {
  /** Verified organization of the caller. */
  organizationId: string;
  sequenceId: string;
  /** Opt-in: signed URLs expose audio. */
  includeRecording: boolean;
  now: Date;
  store?: RecordingStore;
};

/**
 * GET /conversations/metadata/{sequenceId}: one Call metadata object per call of the sequence, by step then attempt,
 * with a signed `recordingUrl` on each call whose audio is available when asked. Raises SEQUENCE_NOT_FOUND for an
 * unknown sequence and for one of another organization alike.
 */
export async function getConversationMetadata(
  db: DbOrTx,
  params: GetConversationMetadataParams,
): Promise<{ sequenceId: string; metadata: TCallMetadata[]; messages: TSequenceMessage[] }> {
  const { organizationId, sequenceId } = params;
  const [sequence, rows, messageRows] = await Promise.all([
    getSequenceOrThrow(db, { organizationId, sequenceId }),
    findCallMetadataRows(db, { organizationId, sequenceIds: [sequenceId] }),
    findSequenceMessages(db, { organizationId, sequenceIds: [sequenceId] }),
  ]);
  // Additive (issue 27): EMAIL/SMS steps and replies beside the call objects, which stay as they were.
  const messages = messageRows.map(toSequenceMessage);

  // Additive (issue 17): the sequence's consent record on each call's metadata.
  const consent = sequence.consent ?? null;
  if (!params.includeRecording) return { sequenceId, metadata: rows.map((row) => ({ ...toCallMetadata(row), consent })), messages };
  const keys = rows.map((row) => signableRecordingKey(row.call));
  const signable = keys.filter((key): key is string => key !== null);
  const urls = signable.length > 0 ? await (params.store ?? getRecordingStore()).signUrls(signable, params.now) : new Map();
  return {
    sequenceId,
    metadata: rows.map((row, index) => ({ ...toCallMetadata(row, keys[index] ? urls.get(keys[index]!)?.url : undefined), consent })),
    messages,
  };
}
