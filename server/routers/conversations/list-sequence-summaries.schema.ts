import { z } from "zod";
import { MAX_SEARCH_LIMIT } from "@/server/schemas/limits";
import { ZLifecycleStatusSchema, ZSequenceIdInputSchema } from "@/server/schemas/sequence";

/** One search page. */
export const MAX_SUMMARIES_PER_REQUEST = MAX_SEARCH_LIMIT;

export const ZListSequenceSummariesRequestSchema = z.object({
  sequenceIds: z.array(ZSequenceIdInputSchema).max(MAX_SUMMARIES_PER_REQUEST).describe("Sequence IDs of one search page."),
});

export const ZSequenceSummarySchema = z.object({
  sequenceId: z.string(),
  agentId: z.string(),
  agentName: z.string(),
  name: z.string(),
  phoneNumber: z.string(),
  timezone: z.string(),
  lifecycleStatus: ZLifecycleStatusSchema,
  callCount: z.number().int(),
  firstScheduledAt: z.string().nullable(),
  lastCall: z
    .object({
      callId: z.string(),
      stepNumber: z.number().int(),
      resultType: z.string(),
      callStatus: z.string(),
      scheduledAt: z.string(),
      hasRecording: z.boolean(),
      hasTranscript: z.boolean(),
    })
    .nullable(),
});

export const ZListSequenceSummariesResponseSchema = z.object({
  sequences: z.array(ZSequenceSummarySchema).describe("In request order; unknown IDs and IDs of other organizations are left out."),
});
