import { deleteWebhookEndpoint } from "@/server/services/webhooks/manage-endpoints";
import { requireRole } from "@/server/trpc/init";
import { ZDeleteWebhookEndpointRequestSchema, ZDeleteWebhookEndpointResponseSchema } from "./delete-webhook-endpoint.schema";

export const deleteWebhookEndpointProcedure = requireRole("admin")
  .input(ZDeleteWebhookEndpointRequestSchema)
  .output(ZDeleteWebhookEndpointResponseSchema)
  .mutation(({ ctx, input }) =>
    deleteWebhookEndpoint(ctx.db, { organizationId: ctx.auth.organizationId, endpointId: input.endpointId, now: ctx.now() }),
  );
