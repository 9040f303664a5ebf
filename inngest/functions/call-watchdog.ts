import type { Inngest } from "inngest";
import { buildCallAnalyzedData, callAnalyzedEventId, isChainHandOver } from "@/server/services/call-engine/announce";
import { handOverChain } from "@/server/services/call-engine/chain";
import { defaultCallEngineDependencies, type CallEngineDependencies } from "@/server/services/call-engine/dependencies";
import { dialDueCall } from "@/server/services/call-engine/dial-call";
import { failCall } from "@/server/services/call-engine/finalize-call";
import {
  analysisTimeoutSeconds,
  callingTimeoutSeconds,
  findDueCalls,
  findStuckCalls,
  overdueGraceSeconds,
} from "@/server/services/call-engine/watchdog";
import { inngest } from "../client";
import { callAnalyzed, sequenceStarted } from "../events";

const BATCH = 200;

/**
 * Every minute: (1) calls stuck in `Calling` (the provider never reported the end) or `Processing Analysis` (the
 * analysis never finished) past their timeout are finished as `Failed` — with the lifecycle, chain and
 * `call/analyzed` that any final result gets — so no call is left without a final result; (2) `Scheduled` calls
 * overdue by more than `CALL_OVERDUE_GRACE_SECONDS` (their runner was lost) are dialed, at most once, through the
 * same `dialDueCall` as the runner.
 */
export function createCallWatchdogFunction(client: Inngest.Any, deps: CallEngineDependencies = defaultCallEngineDependencies) {
  return client.createFunction(
    { id: "call-watchdog", name: "Calls: fail stuck calls, dial overdue ones", triggers: [{ cron: "* * * * *" }], retries: 1 },
    async ({ step }) => {
      const failed = await step.run("fail-stuck-calls", async () => {
        const db = deps.getDb();
        const now = deps.now();
        const stuck = await findStuckCalls(db, {
          now,
          callingTimeoutSeconds: callingTimeoutSeconds(deps.voiceEngine().maxCallWallSeconds),
          analysisTimeoutSeconds: analysisTimeoutSeconds(),
          limit: BATCH,
          organizationIds: deps.watchdogOrganizationIds?.(),
        });
        const finished: string[] = [];
        for (const call of stuck) {
          const reason =
            call.resultType === "Calling"
              ? "The call failed: the voice provider never reported its end."
              : "The call failed: its post-call analysis did not finish.";
          const outcome = await failCall(db, { callId: call.callId, now, reason });
          if (outcome.finalized) finished.push(call.callId);
        }
        return finished;
      });
      for (const callId of failed) {
        const announcement = await step.run(`load-result-${callId}`, () => buildCallAnalyzedData(deps.getDb(), callId));
        const chain = await step.run(`check-chain-${callId}`, () => isChainHandOver(deps.getDb(), callId));
        if (chain?.handOver) {
          const handOver = await step.run(`hand-over-chain-${callId}`, () => handOverChain(deps.getDb(), { sequenceId: chain.sequenceId, now: deps.now() }));
          if (handOver.activatedSequenceIds.length > 0) {
            await step.sendEvent(`start-chained-${callId}`, handOver.activatedSequenceIds.map((sequenceId) => sequenceStarted.create({ sequenceId })));
          }
        }
        if (announcement) await step.sendEvent(`announce-${callId}`, callAnalyzed.create(announcement, { id: callAnalyzedEventId(callId) }));
      }
      const dialed = await step.run("dial-overdue-calls", async () => {
        const db = deps.getDb();
        const now = deps.now();
        const due = await findDueCalls(db, {
          dueBefore: new Date(now.getTime() - overdueGraceSeconds() * 1000),
          limit: BATCH,
          organizationIds: deps.watchdogOrganizationIds?.(),
        });
        let count = 0;
        for (const call of due) {
          const outcome = await dialDueCall(db, { callId: call.callId, now, voiceEngine: deps.voiceEngine() });
          if (outcome.status === "dialed") count += 1;
        }
        return count;
      });
      return { failed: failed.length, dialed };
    },
  );
}

export const callWatchdog = createCallWatchdogFunction(inngest);
