import { z } from "zod";
import { ZCallMetadataSchema } from "@/server/schemas/call";
import { ZSequenceMessageSchema } from "@/server/schemas/message";
import { ZSequenceIdInputSchema } from "@/server/schemas/sequence";
import type { Meta } from "@/server/trpc/init";
import { queryFlag } from "./query-params";

export const getConversationMetadataMeta: Meta = {
  openapi: {
    method: "GET",
    path: "/conversations/metadata/{sequenceId}",
    tags: ["Conversations"],
    summary: "Conversation metadata",
    description:
      "One Call metadata object per call of the sequence, ordered by step (then attempt). With includeRecording=true (any letter case), " +
      "each call whose audio is available carries `recordingUrl`, a signed link valid for 3 hours; calls without retrievable audio have none. " +
      "Recording URLs are opt-in because anyone holding one can fetch the audio until it expires. " +
      "Errors: 404 SEQUENCE_NOT_FOUND for an unknown sequence or one of another organization.",
    protect: true,
    errorResponses: {
      401: "Missing or invalid API key",
      404: "Unknown sequence, or a sequence of another organization (SEQUENCE_NOT_FOUND)",
    },
  },
};

export const ZGetConversationMetadataRequestSchema = z.object({
  sequenceId: ZSequenceIdInputSchema,
  includeRecording: queryFlag("`true` (in any letter case) adds a signed recordingUrl where audio is available; any other value counts as false.").optional(),
});

export const ZGetConversationMetadataResponseSchema = z.object({
  sequenceId: z.string(),
  metadata: z.array(ZCallMetadataSchema).describe("One object per call step, in step order."),
  messages: z
    .array(ZSequenceMessageSchema)
    .describe("Additive: the sequence's EMAIL and SMS steps (one entry per step, with its status) and the contact's SMS replies, in the order they were created."),
});
