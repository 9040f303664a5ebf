import { z } from "zod";
import { ZWebhookEndpointIdSchema, ZWebhookEndpointSchema } from "./webhook-entities.schema";

export const ZGetWebhookEndpointRequestSchema = z.object({ endpointId: ZWebhookEndpointIdSchema });
export const ZGetWebhookEndpointResponseSchema = ZWebhookEndpointSchema;
