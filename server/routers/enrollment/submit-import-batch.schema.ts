import { z } from "zod";
import { ZAgentIdSchema } from "@/server/schemas/agent";
import { ZImportBatchResultSchema } from "@/server/schemas/enrollment";
import { MAX_CONTACTS_PER_REQUEST, MAX_IDEMPOTENCY_KEY_LENGTH, MAX_TIMEZONE_LENGTH, MAX_VARIABLE_NAME_LENGTH } from "@/server/schemas/limits";
import { boundedText } from "@/server/schemas/text";
import { ZImportContactSchema } from "./validate-import-rows.schema";

export const ZSubmitImportBatchRequestSchema = z.object({
  agentId: ZAgentIdSchema,
  idempotencyKey: boundedText(MAX_IDEMPOTENCY_KEY_LENGTH).min(1).describe("Stable for a given file and batch."),
  contacts: z.array(ZImportContactSchema).min(1).max(MAX_CONTACTS_PER_REQUEST),
  timezone: boundedText(MAX_TIMEZONE_LENGTH).optional(),
  groupByField: boundedText(MAX_VARIABLE_NAME_LENGTH).optional(),
  allowDuplicates: z.boolean().optional(),
});

export const ZSubmitImportBatchResponseSchema = ZImportBatchResultSchema;
