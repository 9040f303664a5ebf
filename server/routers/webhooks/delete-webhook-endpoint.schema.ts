import { z } from "zod";
import { ZWebhookEndpointIdSchema } from "./webhook-entities.schema";

export const ZDeleteWebhookEndpointRequestSchema = z.object({ endpointId: ZWebhookEndpointIdSchema });
export const ZDeleteWebhookEndpointResponseSchema = z.object({ endpointId: z.string(), deleted: z.literal(true) });
