import { z } from "zod";
import type { Meta } from "@/server/trpc/init";
import { ZBulkRejectionSchema } from "@/server/schemas/enrollment";
import { enrollManyMeta, ZEnrollManyRequestSchema } from "./enroll-many.schema";

export const previewEnrollmentMeta: Meta = {
  openapi: {
    method: "POST",
    path: "/agents/{agentId}/schedule/sequences/preview",
    tags: ["Enrollment"],
    summary: "Preview a bulk enrollment",
    description: [
      "Takes the body of POST /agents/{agentId}/schedule/sequences and answers the decisions that request would get now —",
      "the same per-contact rejections (same reasons, same order) and the same whole-request errors — creating and",
      "reserving nothing. Where bulk enrollment would fail as a whole after validation, the preview answers 200 and says",
      "so: `accepted: 0` (bulk: 400 NO_VALID_CONTACTS), `credits.sufficient: false` (bulk: 402 INSUFFICIENT_CREDITS).",
      "`firstCallAt` is the range of first-call times of the contacts that would start at once, over the agent's delay",
      "jitter. Decisions can change between the preview and the enrollment (a number opting out, credits being spent).",
    ].join(" "),
    protect: true,
    errorResponses: {
      400: "INVALID_REQUEST (0 or more than 1,000 contacts, groupByField with allowDuplicates, wrong types), INVALID_TIMEZONE (batch default), INVALID_REQUEST_BODY (invalid JSON)",
      401: "Missing (UNAUTHORIZED) or invalid (INVALID_API_KEY) API key",
      404: "AGENT_NOT_FOUND: unknown agent or an agent of another organization",
      413: "PAYLOAD_TOO_LARGE: the body is larger than the bulk enrollment limit",
      415: "UNSUPPORTED_MEDIA_TYPE: the body is not application/json",
      422: "AGENT_MISCONFIGURED: archived agent, no CALL step, or incomplete booking configuration",
    },
  },
  perItemInput: enrollManyMeta.perItemInput,
};

export const ZPreviewEnrollmentRequestSchema = ZEnrollManyRequestSchema;

export const ZPreviewEnrollmentResponseSchema = z
  .object({
    total: z.number().int().describe("Contacts submitted."),
    accepted: z.number().int().describe("Contacts bulk enrollment would schedule."),
    rejected: z.array(ZBulkRejectionSchema).describe("Contacts bulk enrollment would reject, exactly as it would report them."),
    firstCallAt: z
      .object({
        earliest: z.iso.datetime().nullable().describe("Earliest first call among the contacts that would start at once; null when none would."),
        latest: z.iso.datetime().nullable().describe("Latest first call among them (with the largest delay jitter); null when none would."),
      })
      .describe("When the first calls would be placed."),
    credits: z
      .object({
        required: z.number().int().describe("Credits bulk enrollment requires (1 per accepted contact)."),
        remaining: z.number().int().describe("Credits remaining this month."),
        sufficient: z.boolean().describe("False when bulk enrollment would answer 402 INSUFFICIENT_CREDITS."),
      })
      .describe("The credit check bulk enrollment would make (nothing is reserved)."),
  })
  .describe("What bulk enrollment would decide on this body now.");
export type TPreviewEnrollmentResponse = z.infer<typeof ZPreviewEnrollmentResponseSchema>;
