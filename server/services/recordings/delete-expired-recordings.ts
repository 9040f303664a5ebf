import { and, asc, gt, inArray, isNotNull, isNull, lt, or } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { calls } from "@/db/schema";
import { getRecordingStore, isExternalRecordingKey, type RecordingStore } from "@/server/storage/recording-store";
import { getLogger } from "@/server/observability/logger";

export type DeleteExpiredRecordingsParams = {
  now: Date;
  /** Days audio is kept after the call ended (RECORDING_RETENTION_DAYS); null keeps it forever. */
  retentionDays: number | null;
  store?: RecordingStore;
  batchSize?: number;
  /** Resume after this call ID (keyset paging across Inngest steps). */
  afterCallId?: string | null;
  /** Stop after this many batches; the caller continues from `lastCallId`. */
  maxBatches?: number;
};

export type DeleteExpiredRecordingsResult = {
  deleted: number;
  failed: number;
  /** The last call examined; pass it back as `afterCallId` to continue. */
  lastCallId: string | null;
  done: boolean;
};

/**
 * Retention: deletes the audio of calls that ended more than `retentionDays` ago (all organizations), then marks them
 * `recordingDeletedAt` with no key, so every endpoint reports `no-recording` from then on. Transcripts and all other
 * call data stay. The audio is deleted before the row is marked: a crash in between leaves a row that the next run
 * deletes again (deletes are idempotent), never an orphaned file. A delete that fails is logged by key (never a URL)
 * and retried on the next run; it does not stop the others.
 */
export async function deleteExpiredRecordings(db: DbOrTx, params: DeleteExpiredRecordingsParams): Promise<DeleteExpiredRecordingsResult> {
  const result: DeleteExpiredRecordingsResult = { deleted: 0, failed: 0, lastCallId: params.afterCallId ?? null, done: true };
  if (params.retentionDays === null) return result;
  const store = params.store ?? getRecordingStore();
  const batchSize = params.batchSize ?? 500;
  const cutoff = new Date(params.now.getTime() - params.retentionDays * 24 * 60 * 60 * 1000);
  const maxBatches = params.maxBatches ?? Number.POSITIVE_INFINITY;

  for (let batch = 0; batch < maxBatches; batch++) {
    const rows = await db
      .select({ id: calls.id, recordingKey: calls.recordingKey })
      .from(calls)
      .where(
        and(
          isNotNull(calls.recordingKey),
          isNull(calls.recordingDeletedAt),
          // Age counts from the end of the call; a call that never ended counts from its scheduled time.
          or(lt(calls.endedAt, cutoff), and(isNull(calls.endedAt), lt(calls.scheduledAt, cutoff))),
          result.lastCallId ? gt(calls.id, result.lastCallId) : undefined,
        ),
      )
      .orderBy(asc(calls.id))
      .limit(batchSize);
    if (rows.length === 0) return result;
    result.lastCallId = rows[rows.length - 1]!.id;

    const outcomes = await Promise.allSettled(
      // Provider-hosted audio (a URL) is not ours to delete: we only stop referring to it.
      rows.map((row) => (isExternalRecordingKey(row.recordingKey!) ? Promise.resolve() : store.delete(row.recordingKey!))),
    );
    const removed: string[] = [];
    outcomes.forEach((outcome, index) => {
      const row = rows[index]!;
      if (outcome.status === "fulfilled") removed.push(row.id);
      else {
        result.failed += 1;
        getLogger("recording-retention").warn({ callId: row.id, err: outcome.reason }, "could not delete the audio; retrying on the next run");
      }
    });
    if (removed.length > 0) {
      const marked = await db
        .update(calls)
        .set({ recordingKey: null, recordingDeletedAt: params.now })
        .where(and(inArray(calls.id, removed), isNull(calls.recordingDeletedAt)))
        .returning({ id: calls.id });
      result.deleted += marked.length;
    }
    if (rows.length < batchSize) return result;
  }
  result.done = false;
  return result;
}
