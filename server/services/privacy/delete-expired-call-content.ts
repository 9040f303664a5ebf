import { and, asc, eq, gt, inArray, isNotNull, isNull, or, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { callEvents, calls, callTranscriptLines, organizations, webhookDeliveries } from "@/db/schema";

const REMOVED_RESULT_FIELDS = { transcription: "", summary: "", extractedVariables: {}, outcomes: [], humanActions: [] };
import { getLogger } from "@/server/observability/logger";
import { getRecordingStore, isExternalRecordingKey, type RecordingStore } from "@/server/storage/recording-store";

export type DeleteExpiredCallContentParams = {
  now: Date;
  store?: RecordingStore;
  batchSize?: number;
  /** Resume after this call ID (keyset paging across Inngest steps). */
  afterCallId?: string | null;
  maxBatches?: number;
};

export type DeleteExpiredCallContentResult = { removed: number; failed: number; lastCallId: string | null; done: boolean };

/**
 * Per-organization retention (docs/compliance.md "Retention"): for organizations with a retention period, the
 * recording, the transcript (its lines too) and the analysis of every call that ended more than that many days ago
 * are deleted, and the call says so (`contentRemovedAt`, reason `retention`); organizations that keep no recordings
 * lose any audio still stored. The call itself stays (result type, duration, credits, disclosures audit trail): it is
 * what billing and the audit need and holds nothing the contact said. The audio is deleted before the row is
 * marked, so a crash in between is retried on the next run.
 */
export async function deleteExpiredCallContent(db: DbOrTx, params: DeleteExpiredCallContentParams): Promise<DeleteExpiredCallContentResult> {
  const result: DeleteExpiredCallContentResult = { removed: 0, failed: 0, lastCallId: params.afterCallId ?? null, done: true };
  const store = params.store ?? getRecordingStore();
  const batchSize = params.batchSize ?? 500;
  const maxBatches = params.maxBatches ?? Number.POSITIVE_INFINITY;
  const ended = sql`coalesce(${calls.endedAt}, ${calls.scheduledAt})`;
  const expired = sql`${organizations.retentionDays} is not null and ${ended} < ${params.now.toISOString()}::timestamptz - make_interval(days => ${organizations.retentionDays})`;

  for (let batch = 0; batch < maxBatches; batch++) {
    const rows = await db
      .select({ id: calls.id, recordingKey: calls.recordingKey, expired: sql<boolean>`${expired}` })
      .from(calls)
      .innerJoin(organizations, eq(organizations.id, calls.organizationId))
      .where(
        and(
          or(
            and(isNull(calls.contentRemovedAt), isNotNull(calls.endedAt), sql`${expired}`),
            and(eq(organizations.keepRecordings, false), isNotNull(calls.recordingKey), isNull(calls.recordingDeletedAt)),
          ),
          result.lastCallId ? gt(calls.id, result.lastCallId) : undefined,
        ),
      )
      .orderBy(asc(calls.id))
      .limit(batchSize);
    if (rows.length === 0) return result;
    result.lastCallId = rows[rows.length - 1]!.id;
    const outcomes = await Promise.allSettled(rows.map((row) => (row.recordingKey && !isExternalRecordingKey(row.recordingKey) ? store.delete(row.recordingKey) : Promise.resolve())));
    const audioGone: string[] = [];
    const contentGone: string[] = [];
    outcomes.forEach((outcome, index) => {
      const row = rows[index]!;
      if (outcome.status === "rejected") {
        result.failed += 1;
        getLogger("retention").warn({ callId: row.id, err: outcome.reason }, "could not delete the audio; retrying on the next run");
        return;
      }
      (row.expired ? contentGone : audioGone).push(row.id);
    });
    if (audioGone.length > 0) {
      await db.update(calls).set({ recordingKey: null, recordingDeletedAt: params.now }).where(and(inArray(calls.id, audioGone), isNull(calls.recordingDeletedAt)));
    }
    if (contentGone.length > 0) {
      await db.transaction(async (tx) => {
        await tx.delete(callTranscriptLines).where(inArray(callTranscriptLines.callId, contentGone));
        const marked = await tx
          .update(calls)
          .set({
            recordingKey: null,
            recordingDeletedAt: sql`coalesce(${calls.recordingDeletedAt}, ${params.now.toISOString()}::timestamptz)`,
            transcript: null,
            summary: "",
            extractedVariables: {},
            outcomes: [],
            humanActions: [],
            redactedSpans: [],
            contentRemovedAt: params.now,
            contentRemovedReason: "retention",
          })
          .where(and(inArray(calls.id, contentGone), isNull(calls.contentRemovedAt)))
          .returning({ id: calls.id });
        result.removed += marked.length;
        // The copies in the events feed and the webhook deliveries (their replays) lose the same fields.
        const scrub = (body: typeof callEvents.body | typeof webhookDeliveries.body) => sql`(
          ${body}::jsonb
          || jsonb_build_object('callResult', coalesce(${body}::jsonb -> 'callResult', '{}'::jsonb) || ${JSON.stringify(REMOVED_RESULT_FIELDS)}::jsonb)
          || jsonb_build_object('contentRemoved', jsonb_build_object('removedAt', ${params.now.toISOString()}::text, 'reason', 'retention'))
        )::text`;
        await tx.update(callEvents).set({ body: scrub(callEvents.body) }).where(inArray(callEvents.callId, contentGone));
        await tx.update(webhookDeliveries).set({ body: scrub(webhookDeliveries.body) }).where(inArray(webhookDeliveries.callId, contentGone));
      });
    }
    if (rows.length < batchSize) return result;
  }
  result.done = false;
  return result;
}

