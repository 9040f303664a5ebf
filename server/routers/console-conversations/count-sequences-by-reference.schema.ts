import { z } from "zod";

/** The reference of POST /sequences/cancel (a custom input variable and the exact value it must equal). */
export const ZCountSequencesByReferenceRequestSchema = z.object({
  referenceKey: z.string().min(1).max(128),
  referenceValue: z.string().min(1).max(10_000),
});

export const ZCountSequencesByReferenceResponseSchema = z.object({
  inProgress: z.number().int().describe("Sequences a cancel with this reference would cancel."),
  total: z.number().int().describe("All sequences with this reference (the others would be skipped)."),
});
