import type { Inngest } from "inngest";
import { getDb } from "@/db";
import { attemptWebhookDelivery } from "@/server/services/webhooks/deliveries";
import { MAX_AUTOMATIC_ATTEMPTS } from "@/server/services/webhooks/retry-schedule";
import { inngest } from "../client";
import { webhookDeliveryRequested } from "../events";
import type { WebhookFunctionDependencies } from "./enqueue-webhook-deliveries";

const defaultDependencies: WebhookFunctionDependencies = { getDb, now: () => new Date() };

/**
 * Delivers one webhook (its first attempt was made by enqueue-webhook-deliveries when `afterAttempt` is set): the next
 * attempt at once or after `retryInMs`, then retries after 5 s, 30 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h
 * (longer when the receiver sent Retry-After), stopping on success, 410 Gone (endpoint disabled), or when the
 * delivery was settled elsewhere (replay succeeded, endpoint disabled or deleted). Each attempt is one step, so a
 * receiver's failure is an outcome recorded by the service, never a step error; step errors mean our database failed.
 */
export function createDeliverWebhookFunction(client: Inngest.Any, deps: WebhookFunctionDependencies = defaultDependencies) {
  return client.createFunction(
    { id: "deliver-webhook", name: "Webhook: deliver a call result to one endpoint", triggers: [webhookDeliveryRequested] },
    async ({ event, step }) => {
      const done = event.data.afterAttempt ?? 0;
      if (done > 0 && event.data.retryInMs) await step.sleep(`wait-after-attempt-${done}`, event.data.retryInMs);
      for (let attempt = done + 1; attempt <= MAX_AUTOMATIC_ATTEMPTS; attempt += 1) {
        const result = await step.run(`attempt-${attempt}`, () =>
          attemptWebhookDelivery(deps.getDb(), {
            deliveryId: event.data.deliveryId,
            trigger: "automatic",
            automaticAttempt: attempt,
            now: deps.now(),
            policy: deps.addressPolicy?.(),
          }),
        );
        if (result.outcome !== "retry" || result.retryInMs === null) return { outcome: result.outcome, attempts: attempt };
        await step.sleep(`wait-after-attempt-${attempt}`, result.retryInMs);
      }
      return { outcome: "failed", attempts: MAX_AUTOMATIC_ATTEMPTS };
    },
  );
}

export const deliverWebhook = createDeliverWebhookFunction(inngest);
