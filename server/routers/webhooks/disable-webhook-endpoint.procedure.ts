import { disableWebhookEndpoint } from "@/server/services/webhooks/manage-endpoints";
import { requireRole } from "@/server/trpc/init";
import { ZDisableWebhookEndpointRequestSchema, ZDisableWebhookEndpointResponseSchema } from "./disable-webhook-endpoint.schema";

export const disableWebhookEndpointProcedure = requireRole("admin")
  .input(ZDisableWebhookEndpointRequestSchema)
  .output(ZDisableWebhookEndpointResponseSchema)
  .mutation(({ ctx, input }) =>
    disableWebhookEndpoint(ctx.db, { organizationId: ctx.auth.organizationId, endpointId: input.endpointId, now: ctx.now() }),
  );
