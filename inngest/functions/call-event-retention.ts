import type { Inngest } from "inngest";
import { getDb, type Db } from "@/db";
import { deleteExpiredEvents } from "@/server/services/events/delete-expired-events";
import { inngest } from "../client";

export type CallEventRetentionDependencies = { getDb: () => Db };

const defaultDependencies: CallEventRetentionDependencies = { getDb };

/** Batches per step (10 × 5,000 rows); a large backlog continues in further steps of the same run. */
const BATCHES_PER_STEP = 10;
const MAX_STEPS = 200;

/**
 * Daily at 03:41 UTC: deletes events-feed rows (GET /api/v1/events) older than 30 days. The cutoff comes from the
 * cron event's time, so retries of a step use the same one — but never from the future: a scheduler whose clock runs
 * ahead (a test runner, a skewed host) cannot delete events that are not 30 days old by this machine's clock.
 */
export function createCallEventRetentionFunction(client: Inngest.Any, deps: CallEventRetentionDependencies = defaultDependencies) {
  return client.createFunction(
    {
      id: "call-event-retention",
      name: "Events feed: delete events older than 30 days",
      triggers: [{ cron: "41 3 * * *" }],
      retries: 2,
      concurrency: { limit: 1 },
    },
    async ({ event, step }) => {
      const now = new Date(Math.min(event.ts ?? Date.now(), Date.now()));
      let deleted = 0;
      for (let index = 0; index < MAX_STEPS; index++) {
        const batch = await step.run(`delete-expired-events-${index}`, () => deleteExpiredEvents(deps.getDb(), { now, maxBatches: BATCHES_PER_STEP }));
        deleted += batch.deleted;
        if (batch.done) break;
      }
      return { cutoffFrom: now.toISOString(), deleted };
    },
  );
}

export const callEventRetention = createCallEventRetentionFunction(inngest);
