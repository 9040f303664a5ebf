import { and, eq } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { calls } from "@/db/schema";
import { AppError } from "@/server/errors";
import type { RecordingStore } from "@/server/storage/recording-store";
import { buildRecordingEntries, recordingCallColumns, type RecordingEntry } from "./recording-entries";

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
  const columns = params.includeTranscript ? { ...recordingCallColumns, transcript: calls.transcript } : recordingCallColumns;
  const [row] = await db
    .select(columns)
    .from(calls)
    .where(and(eq(calls.id, params.callId), eq(calls.organizationId, params.organizationId)))
    .limit(1);
  if (!row) throw new AppError("CALL_NOT_FOUND", `Call ${params.callId} was not found.`);
  const [entry] = await buildRecordingEntries([row], { includeTranscripts: params.includeTranscript, now: params.now, store: params.store });
  return { recording: { ...entry!, sequenceId: row.sequenceId } };
}
