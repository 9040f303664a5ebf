import { eventType } from "inngest";
import { z } from "zod";

/**
 * Typed events. Trigger a function with `triggers: [sequenceStarted]`, send with
 * `inngest.send(sequenceStarted.create({ sequenceId }))` or `step.sendEvent("id", sequenceStarted.create(…))`:
 * the schema validates the data on send and on receipt. Add new events here, one constant per event name.
 */

/** A bulk enrollment was accepted (202): materialize its contacts into sequences. */
export const sequenceBulkAccepted = eventType("sequence/bulk.accepted", {
  schema: z.object({ batchId: z.string() }),
});

/** A sequence was created and should start running its steps. */
export const sequenceStarted = eventType("sequence/started", {
  schema: z.object({ sequenceId: z.string() }),
});

/** A sequence was cancelled: its runner stops (cancelOn) and scheduled calls are dropped. */
export const sequenceCancelled = eventType("sequence/cancelled", {
  schema: z.object({ sequenceId: z.string() }),
});

/**
 * A dispatcher found nothing dialable before `at` (more than two seconds away, before the next sweep): one sweep run
 * sleeps until then. The event ID names the moment, so the dispatchers that found it start one run, not one each.
 */
export const dispatchWakeRequested = eventType("calls/dispatch.wake", {
  schema: z.object({ at: z.string() }),
});

/** A call ended (any result): the sequence moves on, analysis starts. */
export const callEnded = eventType("call/ended", {
  schema: z.object({ callId: z.string() }),
});

/** Post-call analysis finished: the call-result webhook can be delivered. */
export const callAnalyzed = eventType("call/analyzed", {
  schema: z.looseObject({ callId: z.string() }),
});

/** A booked meeting was cancelled (API or provider). */
export const meetingCancelled = eventType("meeting/cancelled", {
  schema: z.object({ callId: z.string() }),
});

/**
 * One webhook delivery (call result → one endpoint) needs its own run, so endpoints never wait on each other: its
 * retries after a failed first attempt (`afterAttempt` attempts made, the next one due in `retryInMs`), or all of its
 * attempts when neither is given.
 */
export const webhookDeliveryRequested = eventType("webhook/delivery.requested", {
  schema: z.object({ deliveryId: z.string(), afterAttempt: z.number().int().min(0).optional(), retryInMs: z.number().int().min(0).optional() }),
});

/**
 * An EMAIL or SMS step (a `sequence_messages` row) is due at `at`: one run sleeps until then and sends it
 * (inngest/functions/send-sequence-message.ts). The event ID names the message and the moment, so the announcers
 * (enrollment's `sequence/started`, a retry, the sweep) start one run per due time.
 */
export const sequenceMessageDue = eventType("sequence/message.due", {
  schema: z.object({ messageId: z.string(), at: z.string() }),
});

/** An agent test run was created: play its cases (docs/agent-testing.md). */
export const agentTestRunRequested = eventType("agent-tests/run.requested", {
  schema: z.object({ runId: z.string() }),
});
