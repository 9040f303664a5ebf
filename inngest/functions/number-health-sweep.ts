import type { Inngest } from "inngest";
import { getDb, type Db } from "@/db";
import { wakeRestedNumbers } from "@/server/services/numbers/health/wake-rested-numbers";
import { findUnattemptedEventDeliveries } from "@/server/services/webhooks/event-deliveries";
import { inngest } from "../client";
import { webhookDeliveryRequested } from "../events";

export type NumberHealthSweepDependencies = {
  getDb: () => Db;
  now: () => Date;
  /** Only these organizations (tests share one database); all by default. */
  organizationIds?: () => string[];
};

const defaultDependencies: NumberHealthSweepDependencies = { getDb, now: () => new Date() };

/** Deliveries whose attempts were requested after their commit get this long before the sweep requests them again. */
const UNSENT_AFTER_MS = 60_000;

/**
 * Every 5 minutes (docs/numbers.md "Number health"): resting numbers whose rest is over come back under watch (with
 * their `number.health_changed` event and webhook deliveries), and event deliveries never attempted (their request
 * after commit failed) are requested. The deliveries' event IDs name them, so a delivery requested twice runs once.
 */
export function createNumberHealthSweepFunction(client: Inngest.Any, deps: NumberHealthSweepDependencies = defaultDependencies) {
  return client.createFunction(
    { id: "number-health-sweep", name: "Numbers: bring rested numbers back under watch", triggers: [{ cron: "*/5 * * * *" }], retries: 2, concurrency: { limit: 1 } },
    async ({ step }) => {
      const woken = await step.run("wake-rested-numbers", async () => {
        const result = await wakeRestedNumbers(deps.getDb(), { now: deps.now(), organizationIds: deps.organizationIds?.() });
        return { numbers: result.changes.map((change) => change.numberId), deliveryIds: result.deliveryIds };
      });
      const unsent = await step.run("find-unsent-deliveries", () =>
        findUnattemptedEventDeliveries(deps.getDb(), { before: new Date(deps.now().getTime() - UNSENT_AFTER_MS) }),
      );
      const deliveryIds = [...new Set([...woken.deliveryIds, ...unsent])];
      if (deliveryIds.length > 0) {
        await step.sendEvent(
          "request-deliveries",
          deliveryIds.map((deliveryId) => webhookDeliveryRequested.create({ deliveryId }, { id: `webhook-delivery:${deliveryId}` })),
        );
      }
      return { woken: woken.numbers.length, deliveries: deliveryIds.length };
    },
  );
}

export const numberHealthSweep = createNumberHealthSweepFunction(inngest);
