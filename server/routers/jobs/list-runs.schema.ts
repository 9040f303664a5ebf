import { z } from "zod";
import { runStatuses, ZRunSummarySchema } from "./jobs.schema";

export const ZListRunsRequestSchema = z.object({
  status: z.enum(runStatuses).optional(),
  functionId: z.string().max(200).optional(),
  limit: z.number().int().min(1).max(200).default(50),
  cursor: z.string().max(100).optional().describe("`nextCursor` of the previous page."),
});

export const ZListRunsResponseSchema = z.object({
  runs: z.array(ZRunSummarySchema),
  nextCursor: z.string().nullable(),
});
