import { z } from "zod";
import { idText } from "@/server/schemas/text";
import { ZWebhookDeliveryStatusSchema, ZWebhookDeliverySummarySchema } from "./webhook-entities.schema";

export const ZListWebhookDeliveriesRequestSchema = z.object({
  endpointId: idText().optional(),
  callId: idText().optional(),
  status: ZWebhookDeliveryStatusSchema.optional(),
  limit: z.number().int().min(1).max(100).optional().describe("Page size (default 50)."),
  cursor: idText().optional().describe("`nextCursor` of the previous page."),
});
export const ZListWebhookDeliveriesResponseSchema = z.object({
  deliveries: z.array(ZWebhookDeliverySummarySchema).describe("Newest first."),
  nextCursor: z.string().nullable(),
});
