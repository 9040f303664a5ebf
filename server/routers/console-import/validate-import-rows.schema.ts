import { z } from "zod";
import { ZAgentIdSchema } from "@/server/schemas/agent";
import { rejectionReasons } from "@/server/services/enrollment/contact";
import { MAX_ROWS_PER_VALIDATION } from "@/server/services/console-import/validate-import-rows";

export const ZImportContactSchema = z.record(z.string(), z.unknown()).describe("One contact shaped like an item of a bulk enrollment request.");

export const ZValidateImportRowsRequestSchema = z.object({
  agentId: ZAgentIdSchema,
  rows: z.array(ZImportContactSchema).min(1).max(MAX_ROWS_PER_VALIDATION),
  timezone: z.string().max(64).optional(),
  groupByField: z.string().max(128).optional(),
});

export const ZValidateImportRowsResponseSchema = z.object({
  rows: z.array(
    z.discriminatedUnion("ok", [
      z.object({ index: z.number().int(), ok: z.literal(true), dialKey: z.string(), phoneNumber: z.string(), timezone: z.string() }),
      z.object({ index: z.number().int(), ok: z.literal(false), reason: z.enum(rejectionReasons), error: z.string() }),
    ]),
  ),
});
