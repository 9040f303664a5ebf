import { z } from "zod";
import { ZWebhookEndpointSchema } from "./webhook-entities.schema";

export const ZListWebhookEndpointsRequestSchema = z.object({}).optional();
export const ZListWebhookEndpointsResponseSchema = z.object({ endpoints: z.array(ZWebhookEndpointSchema) });
