import { z } from "zod";
import { ZWebhookAgentIdsSchema, ZWebhookDescriptionSchema, ZWebhookEventTypesSchema, ZWebhookEndpointIdSchema, ZWebhookEndpointSchema, ZWebhookUrlSchema } from "./webhook-entities.schema";

export const ZUpdateWebhookEndpointRequestSchema = z.object({
  endpointId: ZWebhookEndpointIdSchema,
  url: ZWebhookUrlSchema.optional(),
  description: ZWebhookDescriptionSchema.optional(),
  agentIds: ZWebhookAgentIdsSchema.optional(),
  eventTypes: ZWebhookEventTypesSchema.optional(),
  enabled: z.boolean().optional().describe("true re-enables (also after a 410 Gone); missed calls are not resent (replay them)."),
});
export const ZUpdateWebhookEndpointResponseSchema = ZWebhookEndpointSchema;
