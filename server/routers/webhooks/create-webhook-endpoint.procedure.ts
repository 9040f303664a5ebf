import { createWebhookEndpoint } from "@/server/services/webhooks/manage-endpoints";
import { requireRole } from "@/server/trpc/init";
import { ZCreateWebhookEndpointRequestSchema, ZCreateWebhookEndpointResponseSchema } from "./create-webhook-endpoint.schema";

export const createWebhookEndpointProcedure = requireRole("admin")
  .input(ZCreateWebhookEndpointRequestSchema)
  .output(ZCreateWebhookEndpointResponseSchema)
  .mutation(({ ctx, input }) => {
    const { actor, organizationId } = ctx.auth;
    return createWebhookEndpoint(ctx.db, {
      organizationId,
      url: input.url,
      description: input.description,
      agentIds: input.agentIds,
      eventTypes: input.eventTypes,
      createdByUserId: actor.type === "user" ? actor.userId : null,
      now: ctx.now(),
    });
  });
