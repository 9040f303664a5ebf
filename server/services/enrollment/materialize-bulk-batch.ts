import { and, eq, gt, inArray, isNull, lt, or, sql } from "drizzle-orm";
import type { Db } from "@/db";
import { bulkBatches, sequences } from "@/db/schema";
import { MAX_CONTACTS_PER_REQUEST } from "@/server/schemas/limits";
import { createBatchSequences, type StoredContact } from "./create-sequences";

/** Event id of a bulk-created sequence's `sequence/started`: a resumed run re-sends it, the runner drops the copy. */
export const bulkStartedEventId = (sequenceId: string) => `bulk-started-${sequenceId}`;

/**
 * Contacts per chunk (one statement of multi-row inserts): a whole bulk request (at most 1,000 contacts) is one
 * chunk, so it costs one read and one write.
 */
export const DEFAULT_CHUNK_SIZE = MAX_CONTACTS_PER_REQUEST;

export type BulkBatchPlan = { batchId: string; accepted: number; chunkSize: number; chunks: number; completed: boolean };

export type MaterializeChunkResult = {
  /** Sequences this call created (0 when the chunk had been created before). */
  created: number;
  /**
   * The chunk's sequences that were scheduled at creation (not waiting in a chain) and are still in progress, also
   * those a previous, interrupted run created: each needs a `sequence/started` event. A repeated chunk lists them
   * again, so the sender dedupes by event id (`bulkStartedEventId`).
   */
  startedSequenceIds: string[];
  /** Whether every accepted contact of the batch now has its sequence. */
  completed: boolean;
  /** How many chunks of this size the batch has. */
  chunks: number;
};

/** A batch without its stored contacts (the large column: a chunk reads only its own slice of them). */
const batchColumns = {
  id: bulkBatches.id,
  organizationId: bulkBatches.organizationId,
  agentId: bulkBatches.agentId,
  accepted: bulkBatches.accepted,
  status: bulkBatches.status,
  steps: bulkBatches.steps,
  agentTimezone: bulkBatches.agentTimezone,
  promptVersionId: bulkBatches.promptVersionId,
  scheduledBy: bulkBatches.scheduledBy,
};

async function getBatch(db: Db, batchId: string) {
  const [batch] = await db
    .select(batchColumns)
    .from(bulkBatches)
    .where(eq(bulkBatches.id, batchId));
  if (!batch) throw new Error(`Bulk batch ${batchId} does not exist`);
  return batch;
}

export async function planBulkBatch(db: Db, params: { batchId: string; chunkSize?: number }): Promise<BulkBatchPlan> {
  const batch = await getBatch(db, params.batchId);
  const chunkSize = Math.max(1, params.chunkSize ?? DEFAULT_CHUNK_SIZE);
  return {
    batchId: batch.id,
    accepted: batch.accepted,
    chunkSize,
    chunks: Math.ceil(batch.accepted / chunkSize),
    completed: batch.status === "completed",
  };
}

/**
 * Creates the sequences of one chunk of a batch's accepted contacts (positions
 * [chunkIndex × chunkSize, (chunkIndex + 1) × chunkSize)) and records the progress, atomically.
 * Safe to repeat and to run concurrently with itself: a contact's sequence is keyed on (batchId, request index),
 * so a chunk that committed before a crash creates nothing the second time.
 *
 * Two round trips in the common case: one statement reads the batch, its chunk of contacts and which of them exist
 * already; one statement inserts the sequences and first calls and counts them into the batch (see
 * createBatchSequences). Chained contacts add a transaction around the chain locks; a repeated chunk reads its
 * scheduled sequences back.
 */
export async function materializeBulkBatchChunk(
  db: Db,
  params: { batchId: string; chunkIndex: number; chunkSize?: number; now?: Date; random?: () => number },
): Promise<MaterializeChunkResult> {
  const chunkSize = Math.max(1, params.chunkSize ?? DEFAULT_CHUNK_SIZE);
  const from = params.chunkIndex * chunkSize;
  const to = from + chunkSize - 1;
  const now = params.now ?? new Date();
  // The batch, what planning needs of this chunk's stored contacts with their positions (the contacts themselves
  // stay in the database: the insert reads them there) and the positions of the chunk that have their sequence
  // already.
  const [batch] = await db
    .select({
      ...batchColumns,
      contacts: sql<Array<[number, number, string, boolean | null, string | null, string | null]>>`coalesce((
        select jsonb_agg(jsonb_build_array(e.n - 1, e.value->'index', e.value->'timezone', e.value->'bypassCallWindows',
          e.value->'scheduledAt', e.value->'groupKey') order by e.n)
        from jsonb_array_elements(${bulkBatches.contacts}) with ordinality as e(value, n)
        where e.n - 1 between ${from} and ${to}), '[]'::jsonb)`,
      existing: sql<number[]>`array(
        select ${sequences.batchIndex} from ${sequences}
        where ${sequences.batchId} = ${bulkBatches.id} and ${sequences.batchIndex} between ${from} and ${to})`,
    })
    .from(bulkBatches)
    .where(eq(bulkBatches.id, params.batchId));
  if (!batch) throw new Error(`Bulk batch ${params.batchId} does not exist`);
  const chunks = Math.ceil(batch.accepted / chunkSize);
  if (batch.contacts.length === 0) return { created: 0, startedSequenceIds: [], completed: batch.status === "completed", chunks };

  const contacts: StoredContact[] = batch.contacts.map(([position, index, timezone, bypassCallWindows, scheduledAt, groupKey]) => ({
    position,
    index,
    timezone,
    bypassCallWindows: bypassCallWindows === true,
    scheduledAt,
    groupKey,
  }));
  const existing = new Set(batch.existing);
  // Chained contacts get their own transaction inside createBatchSequences.
  const { created, progress } = await createBatchSequences(db, {
    agent: {
      organizationId: batch.organizationId,
      agentId: batch.agentId,
      steps: batch.steps,
      agentTimezone: batch.agentTimezone ?? "UTC",
      promptVersionId: batch.promptVersionId,
      scheduledBy: batch.scheduledBy,
    },
    contacts,
    batchId: batch.id,
    existing,
    now,
    random: params.random,
  });
  // Usually every contact of the chunk was created just now; only a repeated chunk needs to look up the rest.
  const scheduled =
    created.length === contacts.length
      ? created.filter((row) => row.firstCall !== null || row.firstMessage !== null).map((row) => ({ id: row.sequenceId }))
      : await db
        .select({ id: sequences.id })
        .from(sequences)
        .where(
          and(
            eq(sequences.batchId, batch.id),
            inArray(
              sequences.batchIndex,
              contacts.map((contact) => contact.index),
            ),
            eq(sequences.lifecycleStatus, "in progress"),
            isNull(sequences.chainActivatedBy),
            or(isNull(sequences.chainStatus), eq(sequences.chainStatus, "active")),
          ),
        )
        .orderBy(sequences.batchIndex);
  // Nothing inserted now: the batch's status as read (a concurrent run that completed it is seen by the next read).
  const status = progress?.status ?? batch.status;
  return { created: created.length, startedSequenceIds: scheduled.map((row) => row.id), completed: status === "completed", chunks };
}

/**
 * Up to `maxChunks` consecutive chunks from `firstChunk`, each its own transaction (what one Inngest step runs).
 * Results are merged; `chunks` is the batch's chunk count.
 */
export async function materializeBulkBatchChunks(
  db: Db,
  params: { batchId: string; firstChunk: number; maxChunks: number; chunkSize?: number; now?: Date; random?: () => number },
): Promise<MaterializeChunkResult> {
  const merged: MaterializeChunkResult = { created: 0, startedSequenceIds: [], completed: false, chunks: params.firstChunk + 1 };
  for (let chunkIndex = params.firstChunk; chunkIndex < Math.min(merged.chunks, params.firstChunk + params.maxChunks); chunkIndex += 1) {
    const chunk = await materializeBulkBatchChunk(db, { ...params, chunkIndex });
    merged.created += chunk.created;
    merged.startedSequenceIds.push(...chunk.startedSequenceIds);
    merged.completed = chunk.completed;
    merged.chunks = chunk.chunks;
  }
  return merged;
}

/**
 * Materializes a whole batch chunk by chunk (each chunk its own transaction). Resumable: after a crash, calling it
 * again creates only what is missing. Returns the sequences it started, for `sequence/started` events.
 */
export async function materializeBulkBatch(
  db: Db,
  params: { batchId: string; chunkSize?: number; now?: Date; random?: () => number },
): Promise<{ created: number; startedSequenceIds: string[]; completed: boolean }> {
  const plan = await planBulkBatch(db, params);
  let created = 0;
  let completed = plan.completed;
  const startedSequenceIds: string[] = [];
  for (let chunkIndex = 0; chunkIndex < plan.chunks; chunkIndex += 1) {
    const result = await materializeBulkBatchChunk(db, { ...params, chunkSize: plan.chunkSize, chunkIndex });
    created += result.created;
    startedSequenceIds.push(...result.startedSequenceIds);
    completed = result.completed;
  }
  return { created, startedSequenceIds, completed };
}

/** Batches accepted between `newerThan` and `olderThan` that still miss sequences (a lost event, a killed run). */
export async function findStalledBulkBatches(db: Db, params: { olderThan: Date; newerThan: Date; limit?: number }): Promise<string[]> {
  const rows = await db
    .select({ id: bulkBatches.id })
    .from(bulkBatches)
    .where(
      and(
        inArray(bulkBatches.status, ["accepted", "creating"]),
        lt(bulkBatches.createdAt, params.olderThan),
        gt(bulkBatches.createdAt, params.newerThan),
      ),
    )
    .orderBy(bulkBatches.createdAt)
    .limit(params.limit ?? 100);
  return rows.map((row) => row.id);
}
