import { replayWebhookDelivery } from "@/server/services/webhooks/deliveries";
import { requireRole } from "@/server/trpc/init";
import { ZReplayWebhookDeliveryRequestSchema, ZReplayWebhookDeliveryResponseSchema } from "./replay-webhook-delivery.schema";

/** Sends now (waits up to the 10 s delivery timeout) and returns the attempt's result. */
export const replayWebhookDeliveryProcedure = requireRole("admin")
  .input(ZReplayWebhookDeliveryRequestSchema)
  .output(ZReplayWebhookDeliveryResponseSchema)
  .mutation(({ ctx, input }) =>
    replayWebhookDelivery(ctx.db, { organizationId: ctx.auth.organizationId, deliveryId: input.deliveryId, now: ctx.now() }),
  );
