import { z } from "zod";
import { MAX_ID_LENGTH, MAX_SEQUENCE_IDS_PER_RECORDINGS_REQUEST } from "@/server/schemas/limits";
import type { Meta } from "@/server/trpc/init";
import { ZRecordingEntrySchema } from "./recording-entry.schema";

export const listRecordingsMeta: Meta = {
  openapi: {
    method: "POST",
    path: "/recordings",
    tags: ["Recordings"],
    summary: "Recordings of sequences",
    description:
      "Every call of the requested sequences (calls ordered by step, then attempt) with a signed recording URL valid for 3 hours where audio exists, and optionally the transcripts. " +
      "Duplicate IDs are collapsed; unknown IDs and IDs of other organizations are returned in `notFound` and never fail the request. " +
      "At most 100 sequence IDs and 500 calls in total per request — nothing is truncated: over 500 calls is TOO_MANY_CALLS, split the IDs across requests. " +
      "Recording URLs are secrets: anyone holding one can fetch the audio until it expires; re-fetch with GET /recordings/{callId}. " +
      "Errors: 400 INVALID_REQUEST (no sequence IDs, more than 100, a missing or mistyped field), 400 TOO_MANY_CALLS (more than 500 calls in total), 400 INVALID_REQUEST_BODY (body is not valid JSON), 415 UNSUPPORTED_MEDIA_TYPE (body not sent as application/json).",
    protect: true,
    errorResponses: {
      400: "No sequence IDs, more than 100, a missing or mistyped field (INVALID_REQUEST); more than 500 calls in total (TOO_MANY_CALLS); a body that is not valid JSON (INVALID_REQUEST_BODY)",
      401: "Missing or invalid API key",
      415: "A body that is not application/json (UNSUPPORTED_MEDIA_TYPE)",
    },
  },
};

const idsMessage = `send 1 to ${MAX_SEQUENCE_IDS_PER_RECORDINGS_REQUEST} sequence IDs`;

export const ZListRecordingsRequestSchema = z.object({
  sequenceIds: z
    .array(z.string().min(1, "must be non-empty strings").max(MAX_ID_LENGTH, `must be at most ${MAX_ID_LENGTH} characters`))
    .min(1, idsMessage)
    .max(MAX_SEQUENCE_IDS_PER_RECORDINGS_REQUEST, idsMessage)
    .describe("1 to 100 sequence IDs as returned by the search endpoint (the limit counts the array as sent). Duplicates are collapsed."),
  // A pipe, not a bare z.boolean(): trpc-to-openapi would switch coercion on and turn "false" into true.
  includeTranscripts: z
    .boolean()
    .transform((value) => value)
    .optional()
    .describe("When true, each call's transcript text is included where it has one. Default false."),
});

export const ZListRecordingsResponseSchema = z.object({
  recordings: z
    .array(
      z.object({
        sequenceId: z.string(),
        calls: z.array(ZRecordingEntrySchema).describe("Every call of the sequence, ordered by call step (then attempt)."),
      }),
    )
    .describe("One item per resolved sequence ID, in request order (first occurrence)."),
  notFound: z
    .array(z.string())
    .optional()
    .describe("Requested IDs that do not exist or belong to another organization; omitted when every ID resolved."),
});
