import { z } from "zod";
import { ZRevealedSecretResponseSchema, ZWebhookAgentIdsSchema, ZWebhookDescriptionSchema, ZWebhookEventTypesSchema, ZWebhookUrlSchema } from "./webhook-entities.schema";

export const ZCreateWebhookEndpointRequestSchema = z.object({
  url: ZWebhookUrlSchema,
  description: ZWebhookDescriptionSchema.optional(),
  agentIds: ZWebhookAgentIdsSchema.optional(),
  eventTypes: ZWebhookEventTypesSchema.optional(),
});
export const ZCreateWebhookEndpointResponseSchema = ZRevealedSecretResponseSchema;
