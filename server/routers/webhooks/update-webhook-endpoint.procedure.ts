import { updateWebhookEndpoint } from "@/server/services/webhooks/manage-endpoints";
import { requireRole } from "@/server/trpc/init";
import { ZUpdateWebhookEndpointRequestSchema, ZUpdateWebhookEndpointResponseSchema } from "./update-webhook-endpoint.schema";

export const updateWebhookEndpointProcedure = requireRole("admin")
  .input(ZUpdateWebhookEndpointRequestSchema)
  .output(ZUpdateWebhookEndpointResponseSchema)
  .mutation(({ ctx, input }) => updateWebhookEndpoint(ctx.db, { ...input, organizationId: ctx.auth.organizationId, now: ctx.now() }));
