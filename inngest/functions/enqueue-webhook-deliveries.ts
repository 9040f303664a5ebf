import type { Inngest } from "inngest";
import { getDb, type Db } from "@/db";
import type { AddressPolicy } from "@/server/services/webhooks/address-guard";
import { createCallDeliveries } from "@/server/services/webhooks/deliveries";
import { inngest } from "../client";
import { callAnalyzed, webhookDeliveryRequested } from "../events";

/** Injected so tests and benchmarks can run the same functions on their own database, clock and address policy. */
export type WebhookFunctionDependencies = { getDb: () => Db; now: () => Date; addressPolicy?: () => AddressPolicy };

const defaultDependencies: WebhookFunctionDependencies = { getDb, now: () => new Date() };

/**
 * `call/analyzed` → one delivery per matching endpoint (body frozen now), each sent on as its own
 * `webhook/delivery.requested` run, so a slow or failing endpoint never delays another endpoint or another call.
 */
export function createEnqueueWebhookDeliveriesFunction(client: Inngest.Any, deps: WebhookFunctionDependencies = defaultDependencies) {
  return client.createFunction(
    { id: "enqueue-webhook-deliveries", name: "Webhook: create the deliveries of an analysed call", triggers: [callAnalyzed] },
    async ({ event, step }) => {
      const { deliveryIds } = await step.run("create-deliveries", () =>
        createCallDeliveries(deps.getDb(), { callId: event.data.callId, now: deps.now() }),
      );
      if (deliveryIds.length > 0) {
        await step.sendEvent(
          "request-deliveries",
          deliveryIds.map((deliveryId) => webhookDeliveryRequested.create({ deliveryId })),
        );
      }
      return { deliveryIds };
    },
  );
}

export const enqueueWebhookDeliveries = createEnqueueWebhookDeliveriesFunction(inngest);
