import type { Inngest } from "inngest";
import { analyzeEndedCall } from "@/server/services/call-engine/analyze-call";
import { buildCallAnalyzedData, callAnalyzedEventId, isChainHandOver } from "@/server/services/call-engine/announce";
import { handOverChain } from "@/server/services/call-engine/chain";
import { defaultCallEngineDependencies, type CallEngineDependencies } from "@/server/services/call-engine/dependencies";
import { finalizeCall } from "@/server/services/call-engine/finalize-call";
import { inngest } from "../client";
import { callAnalyzed, callEnded, sequenceStarted } from "../events";

const RETRIES = 4;

/**
 * `call/ended` → post-call analysis. The call is `Processing Analysis` while this runs. Steps: analyse (read-only;
 * on the last attempt a failing analyser falls back to the rule-based one, so every call gets a result), finalize
 * (result, charge, opt-out, lifecycle, next call — one transaction, once per call), hand the contact chain over,
 * and announce `call/analyzed` with the full call-result payload. The announcement carries a per-call event ID,
 * so it is delivered once per call even if this function (or the watchdog) sends it twice.
 */
export function createAnalyzeCallFunction(client: Inngest.Any, deps: CallEngineDependencies = defaultCallEngineDependencies) {
  return client.createFunction(
    { id: "analyze-call", name: "Call: analyse, finalize and announce", triggers: [callEnded], retries: RETRIES },
    async ({ event, step, attempt }) => {
      const { callId } = event.data;
      const analysis = await step.run("analyze", () =>
        analyzeEndedCall(deps.getDb(), { callId, analyzer: deps.analyzer(), fallbackToRules: attempt >= RETRIES }),
      );
      if (analysis) {
        await step.run("finalize", () => finalizeCall(deps.getDb(), { callId, analysis, now: deps.now() }));
      }
      // From here on, work from the stored state: a crash after finalize, or a duplicate call/ended, still announces.
      const announcement = await step.run("load-result", () => buildCallAnalyzedData(deps.getDb(), callId));
      if (!announcement) return { callId, announced: false };
      const chain = await step.run("check-chain", () => isChainHandOver(deps.getDb(), callId));
      if (chain?.handOver) {
        const handOver = await step.run("hand-over-chain", () => handOverChain(deps.getDb(), { sequenceId: chain.sequenceId, now: deps.now() }));
        if (handOver.activatedSequenceIds.length > 0) {
          await step.sendEvent("start-chained", handOver.activatedSequenceIds.map((sequenceId) => sequenceStarted.create({ sequenceId })));
        }
      }
      await step.sendEvent("announce-analyzed", callAnalyzed.create(announcement, { id: callAnalyzedEventId(callId) }));
      return { callId, announced: true, resultType: announcement.resultType };
    },
  );
}

export const analyzeCall = createAnalyzeCallFunction(inngest);
