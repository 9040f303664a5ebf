import { z } from "zod";
import { MAX_SEARCH_LIMIT } from "@/server/schemas/limits";
import { ZSequenceIdInputSchema, ZSequenceSummarySchema } from "@/server/schemas/sequence";

/** One search page. */
export const MAX_SUMMARIES_PER_REQUEST = MAX_SEARCH_LIMIT;

export const ZListSequenceSummariesRequestSchema = z.object({
  sequenceIds: z.array(ZSequenceIdInputSchema).max(MAX_SUMMARIES_PER_REQUEST).describe("Sequence IDs of one search page."),
});

export const ZListSequenceSummariesResponseSchema = z.object({
  sequences: z.array(ZSequenceSummarySchema).describe("In request order; unknown IDs and IDs of other organizations are left out."),
});
