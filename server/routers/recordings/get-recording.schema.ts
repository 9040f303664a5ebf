import { z } from "zod";
import { queryFlag } from "@/server/routers/conversations/query-params";
import { idText } from "@/server/schemas/text";
import type { Meta } from "@/server/trpc/init";
import { ZRecordingEntrySchema } from "./recording-entry.schema";

export const getRecordingMeta: Meta = {
  openapi: {
    method: "GET",
    path: "/recordings/{callId}",
    tags: ["Recordings"],
    summary: "Recording of one call",
    description:
      "The Recording entry of one call, with its sequenceId and a freshly signed URL valid for 3 hours: use it to re-fetch a link that expired. " +
      "Errors: 404 CALL_NOT_FOUND for an unknown call or one of another organization.",
    protect: true,
    errorResponses: {
      401: "Missing or invalid API key",
      404: "Unknown call, or a call of another organization (CALL_NOT_FOUND)",
    },
  },
};

export const ZGetRecordingRequestSchema = z.object({
  callId: idText().describe("Call ID, format `call.<id>`."),
  includeTranscript: queryFlag("`true` (in any letter case) adds the call's transcript when it has one; any other value counts as false.").optional(),
});

export const ZGetRecordingResponseSchema = z.object({
  recording: ZRecordingEntrySchema.extend({ sequenceId: z.string().describe("The sequence the call belongs to.") }),
});
