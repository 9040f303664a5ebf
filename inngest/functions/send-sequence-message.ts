import type { Inngest } from "inngest";
import { defaultMessageEngineDependencies, type MessageEngineDependencies } from "@/server/services/messaging/dependencies";
import { sendSequenceMessage } from "@/server/services/messaging/send-sequence-message";
import type { NextStep } from "@/server/services/sequences/message-steps";
import { inngest } from "../client";
import { sequenceMessageDue, sequenceStarted } from "../events";

type StepEvent = ReturnType<typeof sequenceMessageDue.create> | ReturnType<typeof sequenceStarted.create>;

/** A next step as a step's result carries it (JSON: times are strings). */
type NextStepRef = { kind: NextStep["kind"]; sequenceId: string; messageId?: string; scheduledAt?: string | Date };

/** The event that wakes the next step's runner: calls go to the dispatcher, messages to their own run. */
export function nextStepEvents(next: NextStepRef | null): StepEvent[] {
  if (!next || next.kind === "end") return [];
  if (next.kind === "message" && next.messageId && next.scheduledAt) {
    const at = new Date(next.scheduledAt).toISOString();
    return [sequenceMessageDue.create({ messageId: next.messageId, at }, { id: dueEventId(next.messageId, at) })];
  }
  return [sequenceStarted.create({ sequenceId: next.sequenceId })];
}

export function dueEventId(messageId: string, at: string): string {
  return `message-due:${messageId}:${at}`;
}

/**
 * `sequence/message.due`: sleeps until the message is due, sends it (sendSequenceMessage: at most once, retried after
 * the webhook delays when the send may pass later), then wakes what follows — the sequence's next step, or this
 * message again at its retry or deferral time.
 */
export function createSendSequenceMessageFunction(client: Inngest.Any, deps: MessageEngineDependencies = defaultMessageEngineDependencies) {
  return client.createFunction(
    { id: "send-sequence-message", name: "Sequences: send an EMAIL or SMS step", triggers: [sequenceMessageDue], retries: 3 },
    async ({ event, step }) => {
      const { messageId, at } = event.data;
      await step.sleepUntil("until-due", new Date(at));
      const outcome = await step.run("send", () => sendSequenceMessage(deps.getDb(), { messageId, now: deps.now(), transports: deps.transports }));
      const later = outcome.status === "retrying" || (outcome.status === "idle" && outcome.nextAttemptAt) ? (outcome.nextAttemptAt as string) : null;
      const events: StepEvent[] = [
        ...(later ? [sequenceMessageDue.create({ messageId, at: later }, { id: dueEventId(messageId, later) })] : []),
        ...("next" in outcome ? nextStepEvents(outcome.next) : []),
      ];
      if (events.length > 0) await step.sendEvent("follow-up", events);
      return { status: outcome.status };
    },
  );
}

export const sendSequenceMessageFunction = createSendSequenceMessageFunction(inngest);
