import { z } from "zod";
import { MAX_NAME_LENGTH } from "@/server/schemas/limits";
import { boundedText, idText } from "@/server/schemas/text";
import { runStatuses, ZRunSummarySchema } from "./jobs.schema";

export const ZListRunsRequestSchema = z.object({
  status: z.enum(runStatuses).optional(),
  functionId: boundedText(MAX_NAME_LENGTH).optional(),
  limit: z.number().int().min(1).max(200).default(50),
  cursor: idText().optional().describe("`nextCursor` of the previous page."),
});

export const ZListRunsResponseSchema = z.object({
  runs: z.array(ZRunSummarySchema),
  nextCursor: z.string().nullable(),
});
