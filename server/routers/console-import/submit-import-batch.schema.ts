import { z } from "zod";
import { ZBulkRejectionSchema } from "@/server/routers/enrollment/enroll-many.schema";
import { ZAgentIdSchema } from "@/server/schemas/agent";
import { MAX_CONTACTS_PER_REQUEST, MAX_IDEMPOTENCY_KEY_LENGTH } from "@/server/services/enrollment/enroll-many";
import { ZImportContactSchema } from "./validate-import-rows.schema";

export const ZSubmitImportBatchRequestSchema = z.object({
  agentId: ZAgentIdSchema,
  idempotencyKey: z.string().min(1).max(MAX_IDEMPOTENCY_KEY_LENGTH).describe("Stable for a given file and batch."),
  contacts: z.array(ZImportContactSchema).min(1).max(MAX_CONTACTS_PER_REQUEST),
  timezone: z.string().max(64).optional(),
  groupByField: z.string().max(128).optional(),
  allowDuplicates: z.boolean().optional(),
});

export const ZSubmitImportBatchResponseSchema = z.object({
  batchId: z.string().nullable(),
  total: z.number().int(),
  accepted: z.number().int(),
  rejected: z.array(ZBulkRejectionSchema),
  replayed: z.boolean(),
});
