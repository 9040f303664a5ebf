import type { Inngest } from "inngest";
import { callAnalyzedEventId, followUpFinishedCalls } from "@/server/services/call-engine/announce";
import { defaultCallEngineDependencies, type CallEngineDependencies } from "@/server/services/call-engine/dependencies";
import { failCall } from "@/server/services/call-engine/finalize-call";
import { analysisTimeoutSeconds, callingTimeoutSeconds, findStuckCalls, findUnstartedAnalyses } from "@/server/services/call-engine/watchdog";
import { inngest } from "../client";
import { callAnalyzed, callEnded, sequenceStarted } from "../events";

const BATCH = 200;

/**
 * Every minute: tells calls that are lost from calls that are late. Lost — the provider went silent on a call in the
 * air past `CALL_WATCHDOG_CALLING_TIMEOUT_SECONDS`, or an analysis started more than
 * `CALL_WATCHDOG_ANALYSIS_TIMEOUT_SECONDS` ago and never finished — ends as `Failed` with the lifecycle, chain and
 * `call/analyzed` any final result gets. Late — ended calls whose analysis has not started after that long (a queue
 * that long, or a lost `call/ended`) — gets its analysis requested again, never `Failed`: a long queue fails no call.
 * Due calls are the dispatcher's (dispatch-due-calls).
 */
export function createCallWatchdogFunction(client: Inngest.Any, deps: CallEngineDependencies = defaultCallEngineDependencies) {
  return client.createFunction(
    { id: "call-watchdog", name: "Calls: fail lost calls, re-request late analyses", triggers: [{ cron: "* * * * *" }], retries: 1 },
    async ({ step }) => {
      const found = await step.run("fail-lost-calls", async () => {
        const db = deps.getDb();
        const now = deps.now();
        const timeout = analysisTimeoutSeconds();
        const stuck = await findStuckCalls(db, {
          now,
          callingTimeoutSeconds: callingTimeoutSeconds(deps.voiceEngine().maxCallWallSeconds),
          analysisTimeoutSeconds: timeout,
          limit: BATCH,
          organizationIds: deps.watchdogOrganizationIds?.(),
        });
        const failed: string[] = [];
        for (const call of stuck) {
          const reason =
            call.resultType === "Calling"
              ? "The call failed: the voice provider never reported its end."
              : "The call failed: its post-call analysis did not finish.";
          const outcome = await failCall(db, { callId: call.callId, now, reason });
          if (outcome.finalized) failed.push(call.callId);
        }
        const unstarted = await findUnstartedAnalyses(db, { now, analysisTimeoutSeconds: timeout, limit: BATCH, organizationIds: deps.watchdogOrganizationIds?.() });
        // One request per call per timeout period (the event ID), however often the watchdog runs meanwhile.
        const period = Math.floor(now.getTime() / (timeout * 1000));
        const followUp = failed.length > 0 ? await followUpFinishedCalls(db, { callIds: failed, now }) : { announcements: [], startSequenceIds: [] };
        return { failed, followUp, unstarted, period };
      });
      const events = [
        ...found.followUp.announcements.map((data) => callAnalyzed.create(data, { id: callAnalyzedEventId(data.callId) })),
        ...found.followUp.startSequenceIds.map((sequenceId) => sequenceStarted.create({ sequenceId })),
        ...found.unstarted.map((callId) => callEnded.create({ callId }, { id: `call-ended:${callId}:watchdog-${found.period}` })),
      ];
      if (events.length > 0) await step.sendEvent("announce-and-request", events);
      return { failed: found.failed.length, analysisRequested: found.unstarted.length };
    },
  );
}

export const callWatchdog = createCallWatchdogFunction(inngest);
