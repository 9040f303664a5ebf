import { and, eq, inArray, lt, sql } from "drizzle-orm";
import type { Db } from "@/db";
import { bulkBatches, sequences } from "@/db/schema";
import type { EnrollmentContact } from "./contact";
import { createSequences } from "./create-sequences";

/** Contacts per transaction: multi-row inserts of this many sequences and calls. */
export const DEFAULT_CHUNK_SIZE = 500;

export type BulkBatchPlan = { batchId: string; accepted: number; chunkSize: number; chunks: number; completed: boolean };

export type MaterializeChunkResult = {
  /** Sequences this call created (0 when the chunk had been created before). */
  created: number;
  /** Created sequences that are scheduled (not waiting in a chain): each needs a `sequence/started` event. */
  startedSequenceIds: string[];
  /** Whether every accepted contact of the batch now has its sequence. */
  completed: boolean;
};

async function getBatch(db: Db, batchId: string) {
  const [batch] = await db
    .select({
      id: bulkBatches.id,
      organizationId: bulkBatches.organizationId,
      agentId: bulkBatches.agentId,
      accepted: bulkBatches.accepted,
      status: bulkBatches.status,
      steps: bulkBatches.steps,
      agentTimezone: bulkBatches.agentTimezone,
      promptVersionId: bulkBatches.promptVersionId,
      scheduledBy: bulkBatches.scheduledBy,
    })
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
 * [chunkIndex × chunkSize, (chunkIndex + 1) × chunkSize)) in one transaction, and records the progress.
 * Safe to repeat and to run concurrently with itself: a contact's sequence is keyed on (batchId, request index),
 * so a chunk that committed before a crash creates nothing the second time.
 */
export async function materializeBulkBatchChunk(
  db: Db,
  params: { batchId: string; chunkIndex: number; chunkSize?: number; now?: Date; random?: () => number },
): Promise<MaterializeChunkResult> {
  const chunkSize = Math.max(1, params.chunkSize ?? DEFAULT_CHUNK_SIZE);
  const batch = await getBatch(db, params.batchId);
  const from = params.chunkIndex * chunkSize;
  const to = Math.min(batch.accepted, from + chunkSize) - 1;
  if (from > to) return { created: 0, startedSequenceIds: [], completed: batch.status === "completed" };
  const now = params.now ?? new Date();

  return db.transaction(async (tx) => {
    // Only this chunk's slice of the stored contacts leaves the database.
    const [slice] = await tx
      .select({ contacts: sql<EnrollmentContact[]>`jsonb_path_query_array(${bulkBatches.contacts}, ${`$[${from} to ${to}]`}::jsonpath)` })
      .from(bulkBatches)
      .where(eq(bulkBatches.id, batch.id));
    const created = await createSequences(tx, {
      agent: {
        organizationId: batch.organizationId,
        agentId: batch.agentId,
        steps: batch.steps,
        agentTimezone: batch.agentTimezone ?? "UTC",
        promptVersionId: batch.promptVersionId,
        scheduledBy: batch.scheduledBy,
      },
      contacts: slice?.contacts ?? [],
      batchId: batch.id,
      now,
      random: params.random,
    });
    const [count] = await tx
      .select({ value: sql<number>`count(*)::int` })
      .from(sequences)
      .where(eq(sequences.batchId, batch.id));
    const completed = (count?.value ?? 0) >= batch.accepted;
    await tx
      .update(bulkBatches)
      .set({
        createdCount: count?.value ?? 0,
        status: completed ? "completed" : "creating",
        completedAt: completed ? sql`coalesce(${bulkBatches.completedAt}, ${now.toISOString()}::timestamptz)` : null,
      })
      .where(eq(bulkBatches.id, batch.id));
    return {
      created: created.length,
      startedSequenceIds: created.filter((row) => row.firstCall !== null).map((row) => row.sequenceId),
      completed,
    };
  });
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

/** Batches accepted before `olderThan` that still miss sequences (a lost event or a killed run): to resume. */
export async function findStalledBulkBatches(db: Db, params: { olderThan: Date; limit?: number }): Promise<string[]> {
  const rows = await db
    .select({ id: bulkBatches.id })
    .from(bulkBatches)
    .where(and(inArray(bulkBatches.status, ["accepted", "creating"]), lt(bulkBatches.createdAt, params.olderThan)))
    .orderBy(bulkBatches.createdAt)
    .limit(params.limit ?? 100);
  return rows.map((row) => row.id);
}
