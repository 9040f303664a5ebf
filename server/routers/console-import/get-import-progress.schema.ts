import { z } from "zod";

export const ZGetImportProgressRequestSchema = z.object({ batchIds: z.array(z.string().min(1)).min(1).max(1000) });

export const ZGetImportProgressResponseSchema = z.object({
  batches: z.array(
    z.object({
      batchId: z.string(),
      status: z.enum(["accepted", "creating", "completed", "failed"]),
      accepted: z.number().int(),
      created: z.number().int().describe("Sequences that exist for the batch now."),
    }),
  ),
});
