import { z } from "zod";
import { ZSequenceReferenceSchema } from "@/server/schemas/sequence";
import type { Meta } from "@/server/trpc/init";

export const cancelSequencesMeta: Meta = {
  openapi: {
    method: "POST",
    path: "/sequences/cancel",
    tags: ["Enrollment"],
    summary: "Cancel sequences by reference",
    description:
      "Cancels every in-progress sequence of the organization whose custom input variable `referenceKey` equals `referenceValue`, waiting chained contacts included. Their scheduled calls become `Cancelled` and nothing more is dialed for them. Sequences already done, cancelled or failed are skipped. Idempotent: returns success also when nothing matched.",
    protect: true,
    errorResponses: {
      400: "INVALID_REQUEST: referenceKey or referenceValue missing, empty or over its length limit (a custom variable's: 64 and 1,000 characters); INVALID_REQUEST_BODY: invalid JSON",
      401: "Missing (UNAUTHORIZED) or invalid (INVALID_API_KEY) API key",
      415: "UNSUPPORTED_MEDIA_TYPE: the body is not application/json",
    },
  },
};

export const ZCancelSequencesRequestSchema = ZSequenceReferenceSchema;

export const ZCancelSequencesResponseSchema = z.object({ success: z.boolean().describe("Always true.") });
