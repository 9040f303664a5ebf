import { z } from "zod";
import { ZRevealedSecretResponseSchema, ZWebhookAgentIdsSchema, ZWebhookDescriptionSchema, ZWebhookUrlSchema } from "./webhook-entities.schema";

export const ZCreateWebhookEndpointRequestSchema = z.object({
  url: ZWebhookUrlSchema,
  description: ZWebhookDescriptionSchema.optional(),
  agentIds: ZWebhookAgentIdsSchema.optional(),
});
export const ZCreateWebhookEndpointResponseSchema = ZRevealedSecretResponseSchema;
