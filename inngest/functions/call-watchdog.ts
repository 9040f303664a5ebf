import type { Inngest } from "inngest";
import { callAnalyzedEventId, followUpFinishedCalls } from "@/server/services/call-engine/announce";
import { defaultCallEngineDependencies, type CallEngineDependencies } from "@/server/services/call-engine/dependencies";
import { failCall } from "@/server/services/call-engine/finalize-call";
import type { Db } from "@/db";
import { getLogger } from "@/server/observability/logger";
import { limiter } from "@/server/runtime/limiter";
import { handleVoiceProviderEvent, recordSignOfLife } from "@/server/services/call-engine/voice-events";
import {
  analysisTimeoutSeconds,
  callingTimeoutSeconds,
  callingVerdict,
  findStuckCalls,
  findUnstartedAnalyses,
  lateEventsSeconds,
  type CallingVerdict,
  type StuckCall,
} from "@/server/services/call-engine/watchdog";
import type { ProviderCallState } from "@/server/voice/types";
import { inngest } from "../client";
import { callAnalyzed, callEnded, sequenceStarted } from "../events";

const BATCH = 200;
const log = getLogger("call-watchdog");

/**
 * Every minute: tells calls that are lost from calls that are late. A call in the air the provider has been silent on
 * past `CALL_WATCHDOG_CALLING_TIMEOUT_SECONDS` is asked about at the provider (`callingVerdict`): still in the air, it
 * waits; ended there, it waits `CALL_WATCHDOG_LATE_EVENTS_SECONDS` for its report, then ends with the provider's
 * result; unknown there (lost), it ends as `Failed`, as does an analysis that started more than
 * `CALL_WATCHDOG_ANALYSIS_TIMEOUT_SECONDS` ago and never finished — with the lifecycle, chain and `call/analyzed` any
 * final result gets. Ended calls whose analysis has not started after that long (a queue that long, or a lost
 * `call/ended`) get their analysis requested again, never `Failed`: a long queue fails no call, late events neither.
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
        const endedFromProvider: string[] = [];
        let waiting = 0;
        // A silent call in the air is asked about at its provider first (a few at a time): late events are not a lost call.
        const ask = limiter(PROVIDER_QUESTIONS_AT_ONCE);
        const verdicts = await Promise.all(
          stuck.map(async (call) => ({ call, verdict: call.resultType === "Calling" ? await ask(() => askProvider(deps, call, now)) : null })),
        );
        for (const { call, verdict } of verdicts) {
          if (verdict?.action === "wait") {
            waiting += 1;
            continue;
          }
          if (verdict?.action === "end-from-provider") {
            if (await endFromProvider(db, call, verdict.state)) endedFromProvider.push(call.callId);
            continue;
          }
          const reason = verdict?.action === "fail" ? verdict.reason : "The call failed: its post-call analysis did not finish.";
          const outcome = await failCall(db, { callId: call.callId, now, reason });
          if (outcome.finalized) failed.push(call.callId);
        }
        const unstarted = await findUnstartedAnalyses(db, { now, analysisTimeoutSeconds: timeout, limit: BATCH, organizationIds: deps.watchdogOrganizationIds?.() });
        // One request per call per timeout period (the event ID), however often the watchdog runs meanwhile.
        const period = Math.floor(now.getTime() / (timeout * 1000));
        const followUp = failed.length > 0 ? await followUpFinishedCalls(db, { callIds: failed, now }) : { announcements: [], startSequenceIds: [] };
        return { failed, followUp, unstarted, period, endedFromProvider, waiting };
      });
      const events = [
        ...found.followUp.announcements.map((data) => callAnalyzed.create(data, { id: callAnalyzedEventId(data.callId) })),
        ...found.followUp.startSequenceIds.map((sequenceId) => sequenceStarted.create({ sequenceId })),
        ...found.unstarted.map((callId) => callEnded.create({ callId }, { id: `call-ended:${callId}:watchdog-${found.period}` })),
        // Ended from the provider's record: analysed as any ended call (the same event ID the entry point sends).
        ...found.endedFromProvider.map((callId) => callEnded.create({ callId }, { id: `call-ended:${callId}` })),
      ];
      if (events.length > 0) await step.sendEvent("announce-and-request", events);
      return { failed: found.failed.length, analysisRequested: found.unstarted.length, endedFromProvider: found.endedFromProvider.length, waiting: found.waiting };
    },
  );
}

/** Questions to the provider in flight at once (Twilio allows far more; one watchdog run asks at most BATCH). */
const PROVIDER_QUESTIONS_AT_ONCE = 8;

/**
 * Asks the voice engine about a silent `Calling` call and applies the rule (`callingVerdict`). A call the provider
 * says is in the air counts as a sign of life from it: the watchdog looks again one timeout later.
 */
async function askProvider(deps: CallEngineDependencies, call: StuckCall, now: Date): Promise<CallingVerdict> {
  const asked = call.providerCallId
    ? await deps
        .voiceEngine()
        .callState({ callId: call.callId, providerCallId: call.providerCallId })
        .then((state) => ({ ok: true as const, state }))
        .catch((error: unknown) => ({ ok: false as const, error: error instanceof Error ? error.message : String(error) }))
    : { ok: true as const, state: { state: "unknown" as const } };
  const verdict = callingVerdict(asked, { now, lastSignOfLifeAt: call.lastSignOfLifeAt, lateEventsSeconds: lateEventsSeconds() });
  if (verdict.action === "wait" && asked.ok && asked.state.state === "active") await recordSignOfLife(deps.getDb(), call.callId, now);
  if (verdict.action !== "fail") log.info({ callId: call.callId, action: verdict.action, ...(verdict.action === "wait" ? { reason: verdict.reason } : {}) }, "watchdog: a silent call, asked at its provider");
  return verdict;
}

/**
 * Ends a call with the provider's own result (its disposition and duration) through the same entry point as its
 * events: the lifecycle, analysis and webhook are those of any ended call. True when the call was still `Calling`.
 */
async function endFromProvider(db: Db, call: StuckCall, state: Extract<ProviderCallState, { state: "ended" }>): Promise<boolean> {
  const outcome = await handleVoiceProviderEvent(db, {
    event: {
      type: "call.ended",
      callId: call.callId,
      providerCallId: call.providerCallId!,
      occurredAt: state.endedAt,
      disposition: state.disposition,
      durationSeconds: state.durationSeconds,
      transcript: null,
      recording: null,
      errorMessage: "The voice provider's end report never arrived: the call was ended from the provider's record of it.",
    },
  });
  return outcome.status === "accepted" && outcome.callEnded;
}

export const callWatchdog = createCallWatchdogFunction(inngest);
