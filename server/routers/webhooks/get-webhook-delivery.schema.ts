import { z } from "zod";
import { ZWebhookAttemptSchema, ZWebhookDeliveryIdSchema, ZWebhookDeliverySummarySchema } from "./webhook-entities.schema";

export const ZGetWebhookDeliveryRequestSchema = z.object({ deliveryId: ZWebhookDeliveryIdSchema });
export const ZGetWebhookDeliveryResponseSchema = ZWebhookDeliverySummarySchema.extend({
  body: z.string().describe("The exact JSON body sent (and signed) on every attempt."),
  attempts: z.array(ZWebhookAttemptSchema).describe("Oldest first."),
});
