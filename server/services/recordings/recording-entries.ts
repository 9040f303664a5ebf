import { calls } from "@/db/schema";
import { getRecordingStore, isExternalRecordingKey, type RecordingStore } from "@/server/storage/recording-store";
import { formatTranscript } from "./format-transcript";

export type RecordingStatus = "downloaded" | "no-recording" | "call-not-found";

/** A Recording entry of the spec (inside a sequence). */
export type RecordingEntry = {
  callId: string;
  recordingStatus: RecordingStatus;
  url?: string;
  expiresAt?: string;
  durationSeconds?: number;
  scheduledAt?: string;
  stepNumber?: number;
  transcript?: string;
  /** Why the audio (and, when `contentRemoved`, the transcript) is gone: the organization's retention. */
  removedReason?: "retention";
};

/** The call columns a Recording entry needs (transcript only when asked for: it is the large one). */
export const recordingCallColumns = {
  id: calls.id,
  sequenceId: calls.sequenceId,
  stepNumber: calls.stepNumber,
  attempt: calls.attempt,
  scheduledAt: calls.scheduledAt,
  duration: calls.duration,
  recordingKey: calls.recordingKey,
  recordingDurationSeconds: calls.recordingDurationSeconds,
  recordingDeletedAt: calls.recordingDeletedAt,
  contentRemovedAt: calls.contentRemovedAt,
};

export type RecordingCallRow = {
  id: string;
  sequenceId: string;
  stepNumber: number;
  attempt: number;
  scheduledAt: Date;
  duration: number;
  recordingKey: string | null;
  recordingDurationSeconds: number | null;
  recordingDeletedAt: Date | null;
  contentRemovedAt: Date | null;
  transcript?: string | null;
};

/**
 * The storage key we can sign for this call, or null: never recorded, cleaned up by retention, or hosted by a
 * provider (an absolute URL) that we cannot sign for. All three are `no-recording`.
 */
export function signableRecordingKey(call: { recordingKey: string | null; recordingDeletedAt: Date | null }): string | null {
  if (!call.recordingKey || call.recordingDeletedAt) return null;
  if (isExternalRecordingKey(call.recordingKey)) return null;
  return call.recordingKey;
}

export type BuildRecordingEntriesParams = {
  includeTranscripts: boolean;
  now: Date;
  store?: RecordingStore;
};

/**
 * Recording entries for calls, in the order given. One signing pass for all of them: the store signs only the
 * audio it can locate, so a key whose file is gone is `no-recording`, never a dead link.
 */
export async function buildRecordingEntries(rows: RecordingCallRow[], params: BuildRecordingEntriesParams): Promise<RecordingEntry[]> {
  const store = params.store ?? getRecordingStore();
  const keys = rows.map(signableRecordingKey);
  const signable = keys.filter((key): key is string => key !== null);
  const urls = signable.length > 0 ? await store.signUrls(signable, params.now) : new Map();
  return rows.map((row, index) => {
    const key = keys[index];
    const signed = key ? urls.get(key) : undefined;
    const entry: RecordingEntry = { callId: row.id, recordingStatus: signed ? "downloaded" : "no-recording" };
    if (signed) {
      entry.url = signed.url;
      entry.expiresAt = signed.expiresAt.toISOString();
    }
    // The recording's own length when we have it, else the call's (0 for a call not made yet).
    entry.durationSeconds = (signed ? row.recordingDurationSeconds : null) ?? row.duration;
    entry.scheduledAt = row.scheduledAt.toISOString();
    entry.stepNumber = row.stepNumber;
    if (params.includeTranscripts && row.transcript) {
      const transcript = formatTranscript(row.transcript);
      if (transcript) entry.transcript = transcript;
    }
    // Deleted under the retention rules: no audio (`no-recording`), an empty transcript, and why.
    if (!signed && (row.recordingDeletedAt || row.contentRemovedAt)) entry.removedReason = "retention";
    if (params.includeTranscripts && row.contentRemovedAt) entry.transcript = "";
    return entry;
  });
}
