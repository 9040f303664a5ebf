import { z } from "zod";
import { MAX_PHONE_NUMBER_LENGTH } from "@/server/schemas/limits";
import { boundedText } from "@/server/schemas/text";
import { ZSuppressionSchema } from "./suppression.schema";

export const ZExportSuppressionsRequestSchema = z.object({
  afterPhoneNumber: boundedText(MAX_PHONE_NUMBER_LENGTH).nullable().describe("The previous chunk's `nextAfter`; null for the first chunk."),
});

export const ZExportSuppressionsResponseSchema = z.object({
  suppressions: z.array(ZSuppressionSchema),
  nextAfter: z.string().nullable().describe("Pass as `afterPhoneNumber` for the next chunk; null after the last one."),
});
export type TExportSuppressionsResponse = z.infer<typeof ZExportSuppressionsResponseSchema>;
