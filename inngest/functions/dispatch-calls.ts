import { createHash } from "node:crypto";
import type { GetStepTools, Inngest } from "inngest";
import { callAnalyzedEventId, followUpFinishedCalls } from "@/server/services/call-engine/announce";
import { defaultCallEngineDependencies, type CallEngineDependencies } from "@/server/services/call-engine/dependencies";
import { dispatchDueCalls } from "@/server/services/call-engine/dial-call";
import { inngest } from "../client";
import { callAnalyzed, dispatchSweepRequested, sequenceStarted } from "../events";

/** The sweep's cadence: one sweep run per hour, alive for the hour (it sleeps between rounds). */
export const DISPATCH_SWEEP_CRON = "0 * * * *";
const SWEEP_PERIOD_MS = 3_600_000;
/** An event-started dispatcher stops when nothing is dialable within this long (the sweep covers later calls). */
const EVENT_RUN_IDLE_MS = 2_000;
/** Rounds per run at most (a round is one step and a wait); a sweep that needs more goes on in a fresh run. */
const MAX_ROUNDS = 300;

type Step = GetStepTools<Inngest.Any>;

/**
 * The dispatcher loop shared by both functions: a round (one step) claims and dials the due calls under the dial gate
 * and the dial-rate limits, and reports the next moment something may be dialable; what it finished without a
 * conversation (refused for good) is announced and chains are handed over.
 * - `event` mode goes on while something is dialable within two seconds, then ends.
 * - `sweep` mode lives until the next sweep is due: between rounds it waits for the next dialable moment or for a
 *   `sequence/started` (new calls: enrollment, chain hand-over, a next call due soon), whichever comes first.
 */
async function dispatchLoop(step: Step, deps: CallEngineDependencies, mode: "event" | "sweep") {
  let spanEnd: number | null = null;
  let dialed = 0;
  for (let round = 0; round < MAX_ROUNDS; round += 1) {
    const result = await step.run(`dispatch-${round}`, async () => {
      const organizationIds = deps.watchdogOrganizationIds?.();
      const outcome = await dispatchDueCalls(deps.getDb(), {
        clock: deps.now,
        voiceEngine: deps.voiceEngine(),
        organizationIds,
        waitUntil: deps.waitForSlot,
      });
      // Names the sweep this dispatcher covers: all organizations, or a test's own (tests share one database).
      const scope = organizationIds ? createHash("sha256").update([...organizationIds].sort().join(",")).digest("hex").slice(0, 16) : "all";
      return { ...outcome, at: deps.now().toISOString(), scope };
    });
    const at = new Date(result.at).getTime();
    spanEnd ??= (Math.floor(at / SWEEP_PERIOD_MS) + 1) * SWEEP_PERIOD_MS;
    dialed += result.dialed;
    if (result.failedCallIds.length > 0 || result.handOverSequenceIds.length > 0) {
      const followUp = await step.run(`follow-up-${round}`, () =>
        followUpFinishedCalls(deps.getDb(), { callIds: result.failedCallIds, endedSequenceIds: result.handOverSequenceIds, now: deps.now() }),
      );
      const events = [
        ...followUp.announcements.map((data) => callAnalyzed.create(data, { id: callAnalyzedEventId(data.callId) })),
        ...followUp.startSequenceIds.map((sequenceId) => sequenceStarted.create({ sequenceId })),
      ];
      if (events.length > 0) await step.sendEvent(`announce-${round}`, events);
    }
    const nextAt = result.nextAt ? new Date(result.nextAt).getTime() : null;
    if (mode === "event") {
      if (nextAt === null) return { dialed };
      if (nextAt > at + EVENT_RUN_IDLE_MS) {
        // Later calls are the sweep's: make sure this hour has one (the cron starts one on the hour; an app started
        // mid-hour, or new calls due before the hour is over, need one now). One per hour: the event ID.
        await step.sendEvent("ensure-sweep", dispatchSweepRequested.create({}, { id: `dispatch-sweep:${result.scope}:${Math.floor(at / SWEEP_PERIOD_MS)}` }));
        return { dialed };
      }
      if (nextAt > at) await step.sleepUntil(`wait-${round}`, new Date(nextAt));
      continue;
    }
    if (at >= spanEnd) return { dialed };
    const wakeAt = Math.min(nextAt ?? spanEnd, spanEnd);
    // A duration, not a date: the runner measures it on its own clock.
    if (wakeAt > at) await step.waitForEvent(`wait-${round}`, { event: sequenceStarted, timeout: wakeAt - at });
  }
  // Out of rounds before the hour is over: a fresh sweep run takes over.
  if (mode === "sweep") await step.sendEvent("continue-sweep", dispatchSweepRequested.create({}));
  return { dialed };
}

/**
 * Started by `sequence/started` (enrollment, chain hand-over, a finished call whose sequence has a next call), the
 * events batched: dials what is due now at once — a bulk enrollment's thousand sequences are one run — and stops when
 * nothing is dialable within two seconds.
 */
export function createDispatchCallsFunction(client: Inngest.Any, deps: CallEngineDependencies = defaultCallEngineDependencies) {
  return client.createFunction(
    {
      id: "dispatch-calls",
      name: "Calls: dial due calls (new sequences)",
      triggers: [sequenceStarted],
      batchEvents: { maxSize: deps.eventBatchSize ?? 1000, timeout: "1s" },
      concurrency: { limit: 2 },
      retries: 3,
    },
    async ({ step }) => dispatchLoop(step, deps, "event"),
  );
}

/**
 * Every hour: a dispatcher run that dials whatever is due and, until the next one starts, wakes at each moment a call
 * falls due (later steps, calls moved to a window's opening, paused agents' rechecks, dial retries) or when new
 * sequences start, so every call is dialed at its due time whether or not an event announced it.
 */
export function createDispatchDueCallsFunction(client: Inngest.Any, deps: CallEngineDependencies = defaultCallEngineDependencies) {
  return client.createFunction(
    { id: "dispatch-due-calls", name: "Calls: dial due calls (hourly sweep)", triggers: [{ cron: DISPATCH_SWEEP_CRON }, dispatchSweepRequested], retries: 3 },
    async ({ step }) => dispatchLoop(step, deps, "sweep"),
  );
}

export const dispatchCalls = createDispatchCallsFunction(inngest);
export const dispatchDueCallsSweep = createDispatchDueCallsFunction(inngest);
