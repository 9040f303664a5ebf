import { and, eq } from "drizzle-orm";
import type { Db } from "@/db";
import { bulkBatches } from "@/db/schema";
import { AppError } from "@/server/errors";
import type { TImportBatchResult } from "@/server/schemas/enrollment";
import type { ContactRejection } from "@/server/services/enrollment/contact";
import { enrollMany } from "@/server/services/enrollment/enroll-many";
import { DASHBOARD_SCHEDULED_BY } from "@/server/services/enrollment/schedulable-agent";

export type SubmitImportBatchParams = {
  organizationId: string;
  agentId: string;
  /** One key per batch of the import, stable for a given file and batch: a re-submitted batch schedules nothing new. */
  idempotencyKey: string;
  contacts: Array<Record<string, unknown>>;
  timezone?: string;
  groupByField?: string;
  allowDuplicates?: boolean;
  now: Date;
};

/**
 * One batch of a CSV import, through the bulk enrollment service (the same rules, idempotency and credit checks as
 * POST /agents/{agentId}/schedule/sequences, with `scheduledBy` "dashboard"). A batch in which nothing is valid is an
 * answer here, not an error: the import goes on with its other batches and reports the rows. Other whole-batch errors
 * (AGENT_MISCONFIGURED, INSUFFICIENT_CREDITS, …) are raised as the bulk service raises them.
 */
export async function submitImportBatch(db: Db, params: SubmitImportBatchParams): Promise<TImportBatchResult> {
  try {
    const result = await enrollMany(db, {
      organizationId: params.organizationId,
      agentId: params.agentId,
      body: {
        contacts: params.contacts,
        timezone: params.timezone,
        groupByField: params.groupByField,
        allowDuplicates: params.allowDuplicates === true,
      },
      idempotencyKey: params.idempotencyKey,
      scheduledBy: DASHBOARD_SCHEDULED_BY,
      now: params.now,
    });
    // A new batch is recorded with createdAt = now; a replay answers with an older batch.
    const [batch] = await db
      .select({ createdAt: bulkBatches.createdAt })
      .from(bulkBatches)
      .where(and(eq(bulkBatches.id, result.batchId), eq(bulkBatches.organizationId, params.organizationId)));
    return { ...result, replayed: batch ? batch.createdAt.getTime() !== params.now.getTime() : false };
  } catch (error) {
    if (error instanceof AppError && error.code === "NO_VALID_CONTACTS") {
      const rejected = (error.details?.rejected ?? []) as ContactRejection[];
      return { batchId: null, total: params.contacts.length, accepted: 0, rejected, replayed: false };
    }
    throw error;
  }
}
