import { z } from "zod";
import { ZSequenceReferenceSchema } from "@/server/schemas/sequence";

/** The reference of POST /sequences/cancel (a custom input variable and the exact value it must equal). */
export const ZCountSequencesByReferenceRequestSchema = ZSequenceReferenceSchema;

export const ZCountSequencesByReferenceResponseSchema = z.object({
  inProgress: z.number().int().describe("Sequences a cancel with this reference would cancel."),
  total: z.number().int().describe("All sequences with this reference (the others would be skipped)."),
});
