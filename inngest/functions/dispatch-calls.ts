import { createHash } from "node:crypto";
import type { GetStepTools, Inngest } from "inngest";
import { callAnalyzedEventId, followUpFinishedCalls } from "@/server/services/call-engine/announce";
import { defaultCallEngineDependencies, type CallEngineDependencies } from "@/server/services/call-engine/dependencies";
import { dispatchDueCalls, findNextDialableAt } from "@/server/services/call-engine/dial-call";
import { inngest } from "../client";
import { callAnalyzed, dispatchWakeRequested, sequenceStarted } from "../events";

/**
 * The sweep's period in minutes (production: every minute). Tests that move a simulated clock over days pass a longer
 * one (`deps.sweepPeriodMinutes`) so a simulated day is not 1,440 runs; the flow is the same.
 */
const DEFAULT_SWEEP_PERIOD_MINUTES = 1;
/** Dispatcher steps per run at most (each up to CALL_DISPATCH_STEP_BUDGET_MS); the next sweep goes on where a run stopped. */
const MAX_ROUNDS = 300;
/** A run sleeps between steps up to this long (a burst paced by the dial rate); a later moment is handed over. */
const MAX_SLEEP_MS = 2_000;

type Step = GetStepTools<Inngest.Any>;

function sweepPeriodMs(deps: CallEngineDependencies): number {
  return (deps.sweepPeriodMinutes ?? DEFAULT_SWEEP_PERIOD_MINUTES) * 60_000;
}

/** The sweep's cron: every minute by default; a period that divides an hour, a whole number of hours dividing a day, or a day. */
export function sweepCron(periodMinutes: number): string {
  if (periodMinutes <= 1) return "* * * * *";
  if (periodMinutes < 60) return `*/${periodMinutes} * * * *`;
  if (periodMinutes < 1440) return `0 */${Math.floor(periodMinutes / 60)} * * *`;
  return "0 0 * * *";
}

/**
 * The dispatcher loop shared by both functions: a step (`dispatchDueCalls`: claims pipelined with placements for up to
 * CALL_DISPATCH_STEP_BUDGET_MS) dials the due calls under the dial gate and the dial-rate limits, and reports the next
 * moment something may be dialable; what it finished without a conversation (refused for good) is announced and chains
 * are handed over. Between steps it sleeps until that moment while it falls before the next sweep (`spanEnd`); later
 * calls are the sweep's that starts then, which only looks up the due index and dials what falls due before its own
 * successor starts.
 */
async function dispatchLoop(step: Step, deps: CallEngineDependencies, knownSpanEnd: number | null) {
  let spanEnd = knownSpanEnd;
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
      // Names the calls this dispatcher covers: all organizations, or a test's own (tests share one database).
      const scope = organizationIds ? createHash("sha256").update([...organizationIds].sort().join(",")).digest("hex").slice(0, 16) : "all";
      return { ...outcome, at: deps.now().toISOString(), scope };
    });
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
    const at = new Date(result.at).getTime();
    spanEnd ??= nextSweepAt(at, sweepPeriodMs(deps));
    const nextAt = result.nextAt ? new Date(result.nextAt).getTime() : null;
    if (nextAt === null || nextAt >= spanEnd) return { dialed };
    if (nextAt > at + MAX_SLEEP_MS) {
      // One sleeping run per moment, however many dispatchers found it (the event ID).
      const wake = dispatchWakeRequested.create({ at: new Date(nextAt).toISOString() }, { id: `dispatch-wake:${result.scope}:${nextAt}` });
      await step.sendEvent("hand-over", wake);
      return { dialed };
    }
    if (nextAt > at) await step.sleepUntil(`wait-${round}`, new Date(nextAt));
  }
  return { dialed };
}

/** The start of the sweep period after `at`. */
function nextSweepAt(at: number, periodMs: number): number {
  return (Math.floor(at / periodMs) + 1) * periodMs;
}

/**
 * Started by `sequence/started` (enrollment, chain hand-over, a finished call whose sequence has a next call), the
 * events batched: dials what is due now at once — a bulk enrollment's thousand sequences are one run — and goes on
 * while something is dialable before the next sweep starts.
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
    async ({ step }) => dispatchLoop(step, deps, null),
  );
}

/**
 * A wake-up (`calls/dispatch.wake`): sleeps until the moment a dispatcher handed over, then dials like the others.
 *
 * Every minute: one look at the due index (`calls_due_idx`, and the claimed calls the engine has not accepted yet).
 * Nothing dialable before the next minute: done. Otherwise it dials as the event-started dispatcher does, waking at
 * each due time within the minute — later steps, calls moved to a window's opening, paused agents' rechecks, dial
 * retries, and a call whose `sequence/started` was lost, which is thus at most a minute late.
 */
export function createDispatchDueCallsFunction(client: Inngest.Any, deps: CallEngineDependencies = defaultCallEngineDependencies) {
  const periodMs = sweepPeriodMs(deps);
  return client.createFunction(
    {
      id: "dispatch-due-calls",
      name: "Calls: dial due calls (sweep, wake-ups)",
      triggers: [{ cron: sweepCron(periodMs / 60_000) }, dispatchWakeRequested],
      retries: 3,
    },
    async ({ event, step }) => {
      if (event.name === dispatchWakeRequested.name) {
        await step.sleepUntil("until-due", new Date((event.data as { at: string }).at));
        return dispatchLoop(step, deps, null);
      }
      const found = await step.run("find-due", async () => {
        const now = deps.now();
        const nextAt = await findNextDialableAt(deps.getDb(), { organizationIds: deps.watchdogOrganizationIds?.() });
        return { at: now.toISOString(), nextAt: nextAt?.toISOString() ?? null };
      });
      const spanEnd = nextSweepAt(new Date(found.at).getTime(), periodMs);
      if (found.nextAt === null || new Date(found.nextAt).getTime() >= spanEnd) return { dialed: 0 };
      return dispatchLoop(step, deps, spanEnd);
    },
  );
}

export const dispatchCalls = createDispatchCallsFunction(inngest);
export const dispatchDueCallsSweep = createDispatchDueCallsFunction(inngest);
