import { z } from "zod";
import { ZWebhookEndpointIdSchema, ZWebhookEndpointSchema } from "./webhook-entities.schema";

export const ZDisableWebhookEndpointRequestSchema = z.object({ endpointId: ZWebhookEndpointIdSchema });
export const ZDisableWebhookEndpointResponseSchema = ZWebhookEndpointSchema;
