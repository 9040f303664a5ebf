import { submitImportBatch } from "@/server/services/enrollment/submit-import-batch";
import { requireRole } from "@/server/trpc/init";
import { ZSubmitImportBatchRequestSchema, ZSubmitImportBatchResponseSchema } from "./submit-import-batch.schema";

/** One batch (≤ 1,000 rows) of a CSV import through the bulk enrollment service, with the batch's idempotency key. */
export const submitImportBatchProcedure = requireRole("admin", { sessionOnly: true })
  // Each contact is checked by the bulk service: a bad contact is rejected alone.
  .meta({ perItemInput: ["contacts"] })
  .input(ZSubmitImportBatchRequestSchema)
  .output(ZSubmitImportBatchResponseSchema)
  .mutation(({ ctx, input }) => submitImportBatch(ctx.db, { organizationId: ctx.auth.organizationId, ...input, now: ctx.now() }));
