import { listWebhookDeliveries } from "@/server/services/webhooks/deliveries";
import { orgProcedure } from "@/server/trpc/init";
import { ZListWebhookDeliveriesRequestSchema, ZListWebhookDeliveriesResponseSchema } from "./list-webhook-deliveries.schema";

export const listWebhookDeliveriesProcedure = orgProcedure
  .input(ZListWebhookDeliveriesRequestSchema)
  .output(ZListWebhookDeliveriesResponseSchema)
  .query(({ ctx, input }) => listWebhookDeliveries(ctx.db, { ...input, organizationId: ctx.auth.organizationId }));
