import { listWebhookEndpoints } from "@/server/services/webhooks/manage-endpoints";
import { orgProcedure } from "@/server/trpc/init";
import { ZListWebhookEndpointsRequestSchema, ZListWebhookEndpointsResponseSchema } from "./list-webhook-endpoints.schema";

export const listWebhookEndpointsProcedure = orgProcedure
  .input(ZListWebhookEndpointsRequestSchema)
  .output(ZListWebhookEndpointsResponseSchema)
  .query(async ({ ctx }) => ({
    endpoints: await listWebhookEndpoints(ctx.db, { organizationId: ctx.auth.organizationId, now: ctx.now() }),
  }));
