import type { Inngest } from "inngest";
import { defaultMessageEngineDependencies, type MessageEngineDependencies } from "@/server/services/messaging/dependencies";
import { failInterruptedSends, findDueMessages, findPendingMessagesOfSequences } from "@/server/services/messaging/due-messages";
import { inngest } from "../client";
import { sequenceMessageDue, sequenceStarted } from "../events";
import { dueEventId, nextStepEvents } from "./send-sequence-message";
import { sweepCron } from "./dispatch-calls";

/**
 * `sequence/started` (batched; the dispatcher gets the same events): announces each scheduled EMAIL or SMS step of the
 * started sequences as `sequence/message.due` — enrollment of a sequence that starts with a message, a call whose next
 * step is one.
 */
export function createScheduleSequenceMessagesFunction(client: Inngest.Any, deps: MessageEngineDependencies = defaultMessageEngineDependencies) {
  return client.createFunction(
    {
      id: "schedule-sequence-messages",
      name: "Sequences: announce due EMAIL and SMS steps",
      triggers: [sequenceStarted],
      batchEvents: { maxSize: deps.eventBatchSize ?? 1000, timeout: "1s" },
      retries: 3,
    },
    async ({ events, step }) => {
      const sequenceIds = [...new Set(events.map((event) => event.data.sequenceId))];
      const due = await step.run("find-messages", () => findPendingMessagesOfSequences(deps.getDb(), sequenceIds));
      if (due.length > 0) await step.sendEvent("announce", due.map((item) => sequenceMessageDue.create(item, { id: dueEventId(item.messageId, item.at) })));
      return { messages: due.length };
    },
  );
}

/**
 * Every minute: messages due before the next sweep whose announcement was lost (at most one period late), and sends a
 * dead sender left `sending` (failed as interrupted, never re-sent; their sequences move on).
 */
export function createSweepSequenceMessagesFunction(client: Inngest.Any, deps: MessageEngineDependencies = defaultMessageEngineDependencies) {
  const periodMinutes = deps.sweepPeriodMinutes ?? 1;
  return client.createFunction(
    { id: "sweep-sequence-messages", name: "Sequences: sweep EMAIL and SMS steps", triggers: [{ cron: sweepCron(periodMinutes) }], retries: 3 },
    async ({ step }) => {
      const found = await step.run("find-due", async () => {
        const now = deps.now();
        const organizationIds = deps.organizationIds?.();
        const interrupted = await failInterruptedSends(deps.getDb(), { now, organizationIds });
        const due = await findDueMessages(deps.getDb(), { until: new Date(now.getTime() + periodMinutes * 60_000), organizationIds });
        return { due, interrupted };
      });
      const events = [
        ...found.due.map((item) => sequenceMessageDue.create(item, { id: dueEventId(item.messageId, item.at) })),
        ...found.interrupted.flatMap((next) => nextStepEvents(next)),
      ];
      if (events.length > 0) await step.sendEvent("announce", events);
      return { due: found.due.length, interrupted: found.interrupted.length };
    },
  );
}

export const scheduleSequenceMessages = createScheduleSequenceMessagesFunction(inngest);
export const sweepSequenceMessages = createSweepSequenceMessagesFunction(inngest);
