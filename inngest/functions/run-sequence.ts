import type { Inngest } from "inngest";
import { defaultCallEngineDependencies, type CallEngineDependencies } from "@/server/services/call-engine/dependencies";
import { buildCallAnalyzedData, callAnalyzedEventId, isChainHandOver } from "@/server/services/call-engine/announce";
import { dialDueCall } from "@/server/services/call-engine/dial-call";
import { handOverChain } from "@/server/services/call-engine/chain";
import { failSequence, findOpenCall } from "@/server/services/call-engine/sequence-state";
import { inngest } from "../client";
import { callAnalyzed, sequenceCancelled, sequenceStarted } from "../events";

/** How long the runner waits for a dialed call's result before it looks at the call again. */
export const RESULT_WAIT = "5m";
/** Rounds per run; past this the run continues in a fresh run (`sequence/started` again) to keep run state small. */
export const MAX_ROUNDS_PER_RUN = 100;
const RETRIES = 3;

/**
 * The per-sequence runner (DESIGN §5). Round after round: find the sequence's open call; if it is scheduled, sleep
 * until it is due and dial it (`dialDueCall` re-checks cancellation, opt-out, a paused agent and the calling window,
 * and may push the call back: the next round sleeps again); then wait for the call's `call/analyzed` (the analysis
 * function finalizes the call and creates the next step's call in the same transaction). It ends when the sequence
 * has nothing left to do (`done`, `failed`, `cancelled`).
 *
 * Cancelled by `sequence/cancelled` at any point (cancelOn): mid-sleep nothing more is dialed; mid-call the call in
 * the air still ends, is analysed, charged and announced, and the sequence stays `cancelled`.
 * A step that keeps failing fails the run; onFailure marks the sequence `failed` (internal error).
 */
export function createRunSequenceFunction(client: Inngest.Any, deps: CallEngineDependencies = defaultCallEngineDependencies) {
  return client.createFunction(
    {
      id: "run-sequence",
      name: "Sequence: dial each call step in its window",
      triggers: [sequenceStarted],
      cancelOn: [{ event: sequenceCancelled, match: "data.sequenceId" }],
      retries: RETRIES,
      onFailure: async ({ event, step }) => {
        const sequenceId = (event.data.event.data as { sequenceId: string }).sequenceId;
        await step.run("fail-sequence", () => failSequence(deps.getDb(), { sequenceId, now: deps.now() }));
      },
    },
    async ({ event, step, attempt }) => {
      const { sequenceId } = event.data;
      for (let round = 1; round <= MAX_ROUNDS_PER_RUN; round += 1) {
        const open = await step.run(`find-open-call-${round}`, () => findOpenCall(deps.getDb(), sequenceId));
        if (open.state === "finished") return { sequenceId, lifecycleStatus: open.lifecycleStatus, rounds: round };
        if (open.state === "scheduled") {
          // A due time in the past (e.g. after downtime) wakes at once; dialDueCall then applies the window.
          await step.sleepUntil(`sleep-until-due-${round}`, new Date(open.dueAt));
          const dial = await step.run(`dial-${round}`, () =>
            dialDueCall(deps.getDb(), {
              callId: open.callId,
              now: deps.now(),
              voiceEngine: deps.voiceEngine(),
              // Transient provider errors are retried; on the last attempt the call ends as Failed instead.
              onPlaceError: attempt >= RETRIES ? "fail-call" : "throw",
            }),
          );
          if (dial.status === "failed") {
            // Ended without a conversation: announce it (and hand the chain over) as analyze-call would.
            const announcement = await step.run(`load-result-${round}`, () => buildCallAnalyzedData(deps.getDb(), dial.callId));
            const chain = await step.run(`check-chain-${round}`, () => isChainHandOver(deps.getDb(), dial.callId));
            if (chain?.handOver) {
              const handOver = await step.run(`hand-over-failed-${round}`, () => handOverChain(deps.getDb(), { sequenceId, now: deps.now() }));
              if (handOver.activatedSequenceIds.length > 0) {
                await step.sendEvent(`start-chained-failed-${round}`, handOver.activatedSequenceIds.map((id) => sequenceStarted.create({ sequenceId: id })));
              }
            }
            if (announcement) await step.sendEvent(`announce-${round}`, callAnalyzed.create(announcement, { id: callAnalyzedEventId(dial.callId) }));
            continue;
          }
          if (dial.status === "skipped" && dial.reason === "opted-out" && dial.chained) {
            const handOver = await step.run(`hand-over-chain-${round}`, () => handOverChain(deps.getDb(), { sequenceId, now: deps.now() }));
            if (handOver.activatedSequenceIds.length > 0) {
              await step.sendEvent(`start-chained-${round}`, handOver.activatedSequenceIds.map((id) => sequenceStarted.create({ sequenceId: id })));
            }
          }
          if (dial.status === "deferred" || dial.status === "skipped") continue;
        }
        await step.waitForEvent(`wait-for-result-${round}`, {
          event: callAnalyzed,
          if: `async.data.callId == '${open.callId}'`,
          timeout: RESULT_WAIT,
        });
      }
      await step.sendEvent("continue-in-new-run", sequenceStarted.create({ sequenceId }));
      return { sequenceId, continued: true };
    },
  );
}

export const runSequence = createRunSequenceFunction(inngest);
