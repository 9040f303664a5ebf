import { getWebhookDelivery } from "@/server/services/webhooks/deliveries";
import { orgProcedure } from "@/server/trpc/init";
import { ZGetWebhookDeliveryRequestSchema, ZGetWebhookDeliveryResponseSchema } from "./get-webhook-delivery.schema";

export const getWebhookDeliveryProcedure = orgProcedure
  .input(ZGetWebhookDeliveryRequestSchema)
  .output(ZGetWebhookDeliveryResponseSchema)
  .query(({ ctx, input }) => getWebhookDelivery(ctx.db, { organizationId: ctx.auth.organizationId, deliveryId: input.deliveryId }));
