import { z } from "zod";
import { ZAgentIdSchema } from "@/server/schemas/agent";
import { ZWebhookEndpointIdSchema, ZWebhookSendResultSchema } from "./webhook-entities.schema";

export const ZSendWebhookTestEventRequestSchema = z.object({
  endpointId: ZWebhookEndpointIdSchema,
  agentId: ZAgentIdSchema.describe("Whose sample payload to send (the same as GET /agent/{agentId}/call_event_sample)."),
});
export const ZSendWebhookTestEventResponseSchema = ZWebhookSendResultSchema;
