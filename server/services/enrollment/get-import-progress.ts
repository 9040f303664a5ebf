import { and, eq, inArray, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { bulkBatches, sequences } from "@/db/schema";
import type { TImportBatchProgress } from "@/server/schemas/enrollment";

/** How far the background creation of an import's sequences has come, per bulk batch of the organization. */
export async function getImportProgress(db: DbOrTx, params: { organizationId: string; batchIds: string[] }): Promise<{ batches: TImportBatchProgress[] }> {
  const ids = [...new Set(params.batchIds)];
  if (ids.length === 0) return { batches: [] };
  const [batchRows, counts] = await Promise.all([
    db
      .select({ batchId: bulkBatches.id, status: bulkBatches.status, accepted: bulkBatches.accepted })
      .from(bulkBatches)
      .where(and(eq(bulkBatches.organizationId, params.organizationId), inArray(bulkBatches.id, ids))),
    db
      .select({ batchId: sequences.batchId, created: sql<number>`count(*)::int` })
      .from(sequences)
      .where(and(eq(sequences.organizationId, params.organizationId), inArray(sequences.batchId, ids)))
      .groupBy(sequences.batchId),
  ]);
  const created = new Map(counts.map((row) => [row.batchId, row.created]));
  return { batches: batchRows.map((row) => ({ ...row, created: created.get(row.batchId) ?? 0 })) };
}
