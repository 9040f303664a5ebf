import { getWebhookEndpoint } from "@/server/services/webhooks/manage-endpoints";
import { orgProcedure } from "@/server/trpc/init";
import { ZGetWebhookEndpointRequestSchema, ZGetWebhookEndpointResponseSchema } from "./get-webhook-endpoint.schema";

export const getWebhookEndpointProcedure = orgProcedure
  .input(ZGetWebhookEndpointRequestSchema)
  .output(ZGetWebhookEndpointResponseSchema)
  .query(({ ctx, input }) =>
    getWebhookEndpoint(ctx.db, { organizationId: ctx.auth.organizationId, endpointId: input.endpointId, now: ctx.now() }),
  );
