import type { DbOrTx } from "@/db";
import { getCallOrThrow } from "@/db/queries/calls";
import type { RecordingStore } from "@/server/storage/recording-store";
import { buildRecordingEntries, type RecordingEntry } from "./recording-entries";

export type GetRecordingParams = {
  /** Verified organization of the caller. */
  organizationId: string;
  callId: string;
  includeTranscript: boolean;
  now: Date;
  store?: RecordingStore;
};

/**
 * GET /recordings/{callId}: one call's Recording entry with a freshly signed URL (re-fetch after expiry).
 * Raises CALL_NOT_FOUND for an unknown call and for a call of another organization alike.
 */
export async function getRecording(db: DbOrTx, params: GetRecordingParams): Promise<{ recording: RecordingEntry & { sequenceId: string } }> {
  const row = await getCallOrThrow(db, { organizationId: params.organizationId, callId: params.callId });
  const [entry] = await buildRecordingEntries([row], { includeTranscripts: params.includeTranscript, now: params.now, store: params.store });
  return { recording: { ...entry!, sequenceId: row.sequenceId } };
}
