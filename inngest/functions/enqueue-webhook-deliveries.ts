import type { Inngest } from "inngest";
import { getDb, type Db } from "@/db";
import type { AddressPolicy } from "@/server/services/webhooks/address-guard";
import { deliverCallResults } from "@/server/services/webhooks/deliveries";
import { inngest } from "../client";
import { callAnalyzed, webhookDeliveryRequested } from "../events";

/** Injected so tests and benchmarks can run the same functions on their own database, clock and address policy. */
export type WebhookFunctionDependencies = {
  getDb: () => Db;
  now: () => Date;
  addressPolicy?: () => AddressPolicy;
  /** Largest `call/analyzed` batch (tests on a simulated clock set 1: each event starts a run at once). */
  eventBatchSize?: number;
};

const defaultDependencies: WebhookFunctionDependencies = { getDb, now: () => new Date() };

/** Analysed calls whose webhooks one run sends: up to this many, or whatever arrived within the batch timeout. */
export const WEBHOOK_BATCH_SIZE = 100;

/**
 * `call/analyzed` events, batched → one delivery per matching endpoint and call (body frozen now), and the first attempt
 * of each at once, 16 at a time, in the same step. Only deliveries that failed get a `webhook/delivery.requested` run
 * of their own for the retries, so a slow or failing endpoint never holds up another endpoint or another call for
 * longer than one attempt's timeout. A batched run is a system run (Jobs page: operators).
 */
export function createEnqueueWebhookDeliveriesFunction(client: Inngest.Any, deps: WebhookFunctionDependencies = defaultDependencies) {
  return client.createFunction(
    {
      id: "enqueue-webhook-deliveries",
      name: "Webhooks: create and send the deliveries of analysed calls",
      triggers: [callAnalyzed],
      batchEvents: { maxSize: deps.eventBatchSize ?? WEBHOOK_BATCH_SIZE, timeout: "1s" },
    },
    async ({ events, step }) => {
      const callIds = [...new Set(events.map((event) => event.data.callId))];
      const sent = await step.run("create-and-send", () =>
        deliverCallResults(deps.getDb(), { callIds, now: deps.now, policy: deps.addressPolicy?.() }),
      );
      if (sent.retries.length > 0) {
        await step.sendEvent(
          "request-retries",
          sent.retries.map(({ deliveryId, retryInMs }) => webhookDeliveryRequested.create({ deliveryId, afterAttempt: 1, retryInMs })),
        );
      }
      return { calls: callIds.length, created: sent.created, succeeded: sent.succeeded, retrying: sent.retries.length };
    },
  );
}

export const enqueueWebhookDeliveries = createEnqueueWebhookDeliveriesFunction(inngest);
