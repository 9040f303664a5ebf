import { z } from "zod";
import { queryInteger } from "@/server/routers/conversations/query-params";
import { MAX_PAGE, MAX_PHONE_NUMBER_LENGTH } from "@/server/schemas/limits";
import { boundedText } from "@/server/schemas/text";
import type { Meta } from "@/server/trpc/init";
import { ZSuppressionSchema } from "./suppression.schema";

export const listSuppressionsMeta: Meta = {
  openapi: {
    method: "GET",
    path: "/suppressions",
    tags: ["Suppressions"],
    summary: "List suppressed numbers",
    description: [
      "The organization's suppression list (do-not-call), newest first, 100 per page. Numbers on it are refused at",
      "enrollment (OPTED_OUT) and are not dialed; contacts who opt out during a call are added with source `call`.",
      "`phoneNumber` (any format, normalized like enrollment) lists only that number's entry.",
    ].join(" "),
    protect: true,
    errorResponses: {
      400: "INVALID_REQUEST (page), INVALID_PHONE_NUMBER (the phoneNumber filter is not a phone number)",
      401: "Missing (UNAUTHORIZED) or invalid (INVALID_API_KEY) API key",
    },
  },
};

export const ZListSuppressionsRequestSchema = z.object({
  page: queryInteger({ min: 1, max: MAX_PAGE, description: "One-based page number (default 1)." }).optional(),
  phoneNumber: boundedText(MAX_PHONE_NUMBER_LENGTH)
    .optional()
    .describe("Only this number, in any format (`+1 (415) 555-0171`, `4155550171`, `+14155550171`)."),
});

export const ZListSuppressionsResponseSchema = z.object({
  suppressions: z.array(ZSuppressionSchema),
  page: z.number().int(),
  hasMore: z.boolean().describe("Whether a next page exists."),
});
export type TListSuppressionsResponse = z.infer<typeof ZListSuppressionsResponseSchema>;
