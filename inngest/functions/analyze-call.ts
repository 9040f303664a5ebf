import type { Inngest } from "inngest";
import { callAnalyzedEventId, followUpFinishedCalls } from "@/server/services/call-engine/announce";
import { defaultCallEngineDependencies, type CallEngineDependencies } from "@/server/services/call-engine/dependencies";
import { analyzeAndFinalizeCalls } from "@/server/services/call-engine/process-ended-calls";
import { inngest } from "../client";
import { callAnalyzed, callEnded, sequenceStarted } from "../events";

const RETRIES = 4;
/** Ended calls analysed by one run: up to this many, or whatever arrived within the batch timeout. */
export const ANALYSIS_BATCH_SIZE = 100;

/**
 * `call/ended` events, batched → post-call analysis of each call (the calls are `Processing Analysis` meanwhile).
 * One step analyses and finalizes every call of the batch (result, charge, opt-out, lifecycle, next call — one
 * transaction per call, once per call; on the last attempt a failing analyser falls back to the rule-based one, so every
 * call gets a result), then reads back each result and hands contact chains over; one `step.sendEvent` announces
 * `call/analyzed` for each call (a per-call event ID, so a repeated announcement — a retried run, the watchdog — is
 * delivered once) and wakes the dispatcher for next calls due soon. A batched run is a system run (Jobs page: operators).
 */
export function createAnalyzeCallFunction(client: Inngest.Any, deps: CallEngineDependencies = defaultCallEngineDependencies) {
  return client.createFunction(
    {
      id: "analyze-call",
      name: "Calls: analyse, finalize and announce ended calls",
      triggers: [callEnded],
      batchEvents: { maxSize: deps.eventBatchSize ?? ANALYSIS_BATCH_SIZE, timeout: "1s" },
      retries: RETRIES,
    },
    async ({ events, step, attempt }) => {
      const callIds = [...new Set(events.map((event) => event.data.callId))];
      const done = await step.run("analyze-finalize-announce", async () => {
        const now = deps.now();
        const { nextCalls } = await analyzeAndFinalizeCalls(deps.getDb(), { callIds, analyzer: deps.analyzer(), now, fallbackToRules: attempt >= RETRIES });
        // From the stored state: a crash after finalize, or a duplicate call/ended, still announces.
        const followUp = await followUpFinishedCalls(deps.getDb(), { callIds, now });
        // Wakes a dispatcher (batched) for the next calls: it sleeps until one is due if that comes before the next
        // sweep; later ones the sweep of their minute finds.
        return { ...followUp, wakeSequenceIds: nextCalls.map((next) => next.sequenceId) };
      });
      const followUpEvents = [
        ...done.announcements.map((data) => callAnalyzed.create(data, { id: callAnalyzedEventId(data.callId) })),
        ...[...done.startSequenceIds, ...done.wakeSequenceIds].map((sequenceId) => sequenceStarted.create({ sequenceId })),
      ];
      if (followUpEvents.length > 0) await step.sendEvent("announce", followUpEvents);
      return { calls: callIds.length, announced: done.announcements.length };
    },
  );
}

export const analyzeCall = createAnalyzeCallFunction(inngest);
