import { z } from "zod";
import { MAX_PHONE_NUMBER_LENGTH } from "@/server/schemas/limits";
import { boundedText } from "@/server/schemas/text";
import type { Meta } from "@/server/trpc/init";

export const removeSuppressionMeta: Meta = {
  openapi: {
    method: "DELETE",
    path: "/suppressions/{phoneNumber}",
    tags: ["Suppressions"],
    summary: "Remove a suppressed number",
    description:
      "Takes a number off the suppression list (URL-encode it: `+14155550171` → `%2B14155550171`). It can be enrolled and dialed again. Only do this when the person has asked to be called again.",
    protect: true,
    errorResponses: {
      400: "INVALID_PHONE_NUMBER: the path is not a phone number",
      401: "Missing (UNAUTHORIZED) or invalid (INVALID_API_KEY) API key",
      404: "SUPPRESSION_NOT_FOUND: the number is not on this organization's list",
    },
  },
};

export const ZRemoveSuppressionRequestSchema = z.object({
  phoneNumber: boundedText(MAX_PHONE_NUMBER_LENGTH).describe("The suppressed number, E.164 and URL-encoded (other formats are normalized)."),
});

export const ZRemoveSuppressionResponseSchema = z.object({ success: z.literal(true) });
