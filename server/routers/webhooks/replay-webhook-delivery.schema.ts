import { z } from "zod";
import { ZWebhookDeliveryIdSchema, ZWebhookSendResultSchema } from "./webhook-entities.schema";

export const ZReplayWebhookDeliveryRequestSchema = z.object({ deliveryId: ZWebhookDeliveryIdSchema });
export const ZReplayWebhookDeliveryResponseSchema = ZWebhookSendResultSchema;
