import { z } from "zod";
import { ZRevealedSecretResponseSchema, ZWebhookAgentIdsSchema, ZWebhookUrlSchema } from "./webhook-entities.schema";

export const ZCreateWebhookEndpointRequestSchema = z.object({
  url: ZWebhookUrlSchema,
  description: z.string().trim().max(200).optional(),
  agentIds: ZWebhookAgentIdsSchema.optional(),
});
export const ZCreateWebhookEndpointResponseSchema = ZRevealedSecretResponseSchema;
