import { z } from "zod";
import { ZAgentIdSchema } from "@/server/schemas/agent";
import { ZImportRowCheckSchema } from "@/server/schemas/enrollment";
import { MAX_CONTACTS_PER_REQUEST, MAX_TIMEZONE_LENGTH, MAX_VARIABLE_NAME_LENGTH } from "@/server/schemas/limits";
import { boundedText } from "@/server/schemas/text";

/** Validated field by field by the enrollment service's per-contact rules (the limits of bulk enrollment). */
export const ZImportContactSchema = z.record(z.string(), z.unknown()).describe("One contact shaped like an item of a bulk enrollment request.");

export const ZValidateImportRowsRequestSchema = z.object({
  agentId: ZAgentIdSchema,
  rows: z.array(ZImportContactSchema).min(1).max(MAX_CONTACTS_PER_REQUEST),
  timezone: boundedText(MAX_TIMEZONE_LENGTH).optional(),
  groupByField: boundedText(MAX_VARIABLE_NAME_LENGTH).optional(),
});

export const ZValidateImportRowsResponseSchema = z.object({ rows: z.array(ZImportRowCheckSchema) });
