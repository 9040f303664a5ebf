import { z } from "zod";
import { ZImportBatchProgressSchema } from "@/server/schemas/enrollment";
import { MAX_IDS_PER_LOOKUP } from "@/server/schemas/limits";
import { idText } from "@/server/schemas/text";

export const ZGetImportProgressRequestSchema = z.object({ batchIds: z.array(idText()).min(1).max(MAX_IDS_PER_LOOKUP) });

export const ZGetImportProgressResponseSchema = z.object({ batches: z.array(ZImportBatchProgressSchema) });
