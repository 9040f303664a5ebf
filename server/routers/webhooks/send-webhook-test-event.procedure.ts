import { sendWebhookTestEvent } from "@/server/services/webhooks/send-test-event";
import { requireRole } from "@/server/trpc/init";
import { ZSendWebhookTestEventRequestSchema, ZSendWebhookTestEventResponseSchema } from "./send-webhook-test-event.schema";

/** Delivers a signed sample once, now (no retries), and logs it as a `test` delivery. */
export const sendWebhookTestEventProcedure = requireRole("admin")
  .input(ZSendWebhookTestEventRequestSchema)
  .output(ZSendWebhookTestEventResponseSchema)
  .mutation(({ ctx, input }) =>
    sendWebhookTestEvent(ctx.db, {
      organizationId: ctx.auth.organizationId,
      endpointId: input.endpointId,
      agentId: input.agentId,
      now: ctx.now(),
    }),
  );
