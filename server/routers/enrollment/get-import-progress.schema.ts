import { z } from "zod";
import { MAX_IDS_PER_LOOKUP } from "@/server/schemas/limits";
import { idText } from "@/server/schemas/text";

export const ZGetImportProgressRequestSchema = z.object({ batchIds: z.array(idText()).min(1).max(MAX_IDS_PER_LOOKUP) });

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
