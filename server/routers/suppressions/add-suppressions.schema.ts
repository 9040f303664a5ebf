import { z } from "zod";
import { MAX_DESCRIPTION_LENGTH, MAX_PHONE_NUMBER_LENGTH, MAX_SUPPRESSIONS_PER_REQUEST } from "@/server/schemas/limits";
import { boundedText } from "@/server/schemas/text";
import type { Meta } from "@/server/trpc/init";

export const addSuppressionsMeta: Meta = {
  openapi: {
    method: "POST",
    path: "/suppressions",
    tags: ["Suppressions"],
    summary: "Suppress numbers",
    description: [
      "Adds 1 to 10,000 numbers, in any format, to the organization's suppression list. Each number is normalized like",
      "at enrollment (no country code = North American; an extension is dropped); an invalid item is rejected alone by",
      "its index. Every valid item counts as `added` or `alreadySuppressed` (on the list already, or repeated earlier",
      "in the request). Suppressed numbers are refused at enrollment (OPTED_OUT), and calls already scheduled to them",
      "are cancelled when they fall due.",
    ].join(" "),
    protect: true,
    errorResponses: {
      400: "INVALID_REQUEST (no numbers, more than 10,000, a reason over 1,000 characters), INVALID_REQUEST_BODY (invalid JSON)",
      401: "Missing (UNAUTHORIZED) or invalid (INVALID_API_KEY) API key",
      413: "PAYLOAD_TOO_LARGE: the body is larger than 1 MB",
      415: "UNSUPPORTED_MEDIA_TYPE: the body is not application/json",
    },
  },
  // Each number is checked by the service, so one bad item is rejected alone instead of failing the request.
  perItemInput: ["phoneNumbers"],
};

export const ZAddSuppressionsRequestSchema = z.object({
  phoneNumbers: z
    .array(
      z
        .unknown()
        .meta({ override: { type: "string", maxLength: MAX_PHONE_NUMBER_LENGTH, description: "A phone number in any format." } }),
    )
    .min(1, "must hold at least one number")
    .max(MAX_SUPPRESSIONS_PER_REQUEST, `must hold at most ${MAX_SUPPRESSIONS_PER_REQUEST.toLocaleString("en-US")} numbers`)
    .describe("1 to 10,000 phone numbers in any format."),
  reason: boundedText(MAX_DESCRIPTION_LENGTH).optional().describe("Why these numbers are suppressed (kept with each new entry)."),
});

export const ZSuppressionRejectionSchema = z.object({
  index: z.number().int().describe("Position of the item in `phoneNumbers` (0-based)."),
  phoneNumber: z.string().describe("The item as sent (cut to 64 characters)."),
  reason: z.literal("INVALID_PHONE_NUMBER"),
  error: z.string().describe("Human-readable explanation."),
});

export const ZAddSuppressionsResponseSchema = z.object({
  added: z.number().int().describe("Numbers newly put on the list."),
  alreadySuppressed: z.number().int().describe("Valid items whose number was on the list already (or repeated in this request)."),
  rejected: z.array(ZSuppressionRejectionSchema).describe("Items that are not valid phone numbers, by index; empty when all were valid."),
});
export type TAddSuppressionsResponse = z.infer<typeof ZAddSuppressionsResponseSchema>;
