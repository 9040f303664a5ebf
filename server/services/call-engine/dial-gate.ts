import { carrierOfEngine } from "@/server/carriers/registry";
import { getConfig } from "@/server/config/env";
import { firstInstantInWindow, stepTimezone } from "@/server/services/scheduling/compute-step-due-at";
import { agentTimezoneOf, pickFromPhoneNumber } from "./call-context";
import { attemptCapCheck, autoPauseCheck, concurrencyCapCheck, dailyCreditCapCheck, quietHoursCheck } from "./compliance-checks";
import { callerIdCheck } from "./caller-id-check";
import { dialPlanningHorizonMs, DialRatePlanner, numberSubject, organizationSubject } from "./dial-rate";
import type { DialCandidate, DialCheck, GateContext, GateVerdict } from "./dial-check";

export type { DialCandidate, DialCheck, GateContext, GateVerdict } from "./dial-check";

/**
 * The number a call goes out from: the one `callerIdCheck` chose. Only gates run without that check (a test's own
 * list) fall back to the pool itself.
 */
export function callerIdOf(candidate: DialCandidate): string {
  return candidate.fromPhoneNumber ?? pickFromPhoneNumber(candidate.agent.phoneNumbers, candidate.sequence.phoneNumber);
}

/** How long a call waits before the engine looks again while its agent is paused (default 5 minutes). */
export function pausedRecheckSeconds(): number {
  return getConfig().CALL_PAUSED_RECHECK_SECONDS;
}

function each(candidates: DialCandidate[], decide: (candidate: DialCandidate) => GateVerdict | null): Map<string, GateVerdict> {
  const verdicts = new Map<string, GateVerdict>();
  for (const candidate of candidates) {
    const verdict = decide(candidate);
    if (verdict) verdicts.set(candidate.call.id, verdict);
  }
  return verdicts;
}

/** The sequence was cancelled, finished or failed since the call was scheduled (cancel by reference lands here). */
export const sequenceInProgressCheck: DialCheck = {
  name: "sequence-in-progress",
  run: (_context, candidates) =>
    each(candidates, ({ sequence }) => (sequence.lifecycleStatus === "in progress" ? null : { action: "cancel", reason: "sequence-not-in-progress" })),
};

/**
 * The demo seed's sequences are for the simulator: through a real engine their made-up numbers would ring real
 * phones. Never dialed there — the call is cancelled with the reason, and the sequence with it.
 */
export const demoDataCheck: DialCheck = {
  name: "demo-data",
  run: ({ engine }, candidates) =>
    each(candidates, ({ sequence }) =>
      sequence.demo && !carrierOfEngine(engine).dialsDemoData
        ? { action: "cancel", reason: "demo-data", summary: `Not dialed: demo data is only ever called by the voice simulator, never through ${engine}.`, endSequence: true }
        : null,
    ),
};

/** Not due yet (the single-call path can be asked early). */
export const dueCheck: DialCheck = {
  name: "due",
  run: ({ now }, candidates) =>
    each(candidates, ({ call }) => (call.scheduledAt.getTime() > now.getTime() ? { action: "defer", until: call.scheduledAt, reason: "not-due" } : null)),
};

/** The number opted out (in any sequence of the organization) after this call was scheduled. */
export const optOutCheck: DialCheck = {
  name: "opt-out",
  run: (_context, candidates) =>
    each(candidates, ({ optedOut }) =>
      optedOut ? { action: "cancel", reason: "opted-out", summary: "Not dialed: the number is on the organization's opt-out list.", endSequence: true } : null,
    ),
};

/** A PAUSED or ARCHIVED agent does not dial: looked at again `CALL_PAUSED_RECHECK_SECONDS` later. */
export const agentActiveCheck: DialCheck = {
  name: "agent-active",
  run: ({ now }, candidates) =>
    each(candidates, ({ agent }) =>
      agent.status === "ACTIVE" ? null : { action: "defer", until: new Date(now.getTime() + pausedRecheckSeconds() * 1000), reason: "agent-paused" },
    ),
};

/** Outside the step's calling window (e.g. it fell due while the service was down): moved to the next opening. */
export const callWindowCheck: DialCheck = {
  name: "call-window",
  run: ({ now }, candidates) =>
    each(candidates, ({ call, sequence, agent }) => {
      const step = sequence.steps[call.stepNumber - 1];
      if (!step || sequence.bypassCallWindows) return null;
      const zone = stepTimezone(step, sequence.timezone, agentTimezoneOf(agent, sequence.timezone));
      const opens = firstInstantInWindow(now.getTime(), step.executionWindowConfig.timeWindow, zone);
      return opens > now.getTime() ? { action: "defer", until: new Date(opens), reason: "outside-window" } : null;
    }),
};

/**
 * The dial-rate limits (organization, caller ID): plans each call's slot, the earliest free ones first; a call whose
 * slot is beyond the planning horizon waits for a later round. Last, so only calls that will really be dialed take slots.
 */
export const dialRateCheck: DialCheck = {
  name: "dial-rate",
  run: async (context, candidates) => {
    const verdicts = new Map<string, GateVerdict>();
    if (!context.paced || candidates.length === 0) return verdicts;
    const subjectsOf = (candidate: DialCandidate) => [
      organizationSubject(candidate.call.organizationId, candidate.organizationDialRate),
      numberSubject(candidate.call.organizationId, callerIdOf(candidate)),
    ];
    const planner = await DialRatePlanner.load(
      context.tx,
      candidates.flatMap((candidate) => subjectsOf(candidate).map((subject) => subject.key)),
      context.now,
    );
    const horizonMs = dialPlanningHorizonMs();
    const horizon = context.now.getTime() + horizonMs;
    // Earliest slot first (ties in due order), not strictly in due order: a call whose caller ID is busy takes its
    // later slot without holding up the calls behind it. Taken in due order, it would move the organization's one
    // cursor past its own slot and leave the organization's slots in between unused (with 20 caller IDs at 5/s and
    // 50/s for the organization, about half of them in a burst).
    const pending = candidates.map((candidate) => ({ candidate, subjects: subjectsOf(candidate) }));
    while (pending.length > 0) {
      let best = 0;
      let bestSlot = Infinity;
      pending.forEach((entry, index) => {
        const slot = planner.peek(entry.subjects, entry.candidate.call.scheduledAt);
        if (slot < bestSlot) [best, bestSlot] = [index, slot];
      });
      if (bestSlot > horizon) break;
      const [{ candidate, subjects }] = pending.splice(best, 1) as [(typeof pending)[number]];
      planner.take(subjects, bestSlot);
      context.slots.set(candidate.call.id, new Date(bestSlot));
    }
    for (const { candidate, subjects } of pending) {
      const slot = planner.peek(subjects, candidate.call.scheduledAt);
      verdicts.set(candidate.call.id, { action: "wait", reason: "rate-limit", retryAt: new Date(slot - horizonMs) });
    }
    await planner.save(context.tx);
    return verdicts;
  },
};

/**
 * The dial gate, in order. The compliance checks (compliance-checks.ts) come after the agent's window and before
 * `dialRateCheck`, so a call they stop takes no slot.
 */
export const dialChecks: DialCheck[] = [
  sequenceInProgressCheck,
  demoDataCheck,
  dueCheck,
  optOutCheck,
  agentActiveCheck,
  autoPauseCheck,
  callWindowCheck,
  quietHoursCheck,
  dailyCreditCapCheck,
  attemptCapCheck,
  concurrencyCapCheck,
  callerIdCheck,
  dialRateCheck,
];

/** Runs the checks in order over the candidates; returns the verdicts (absent: dial it) and the planned slots. */
export async function runDialGate(
  context: Omit<GateContext, "slots">,
  candidates: DialCandidate[],
  checks: DialCheck[] = dialChecks,
): Promise<{ verdicts: Map<string, GateVerdict>; slots: Map<string, Date> }> {
  const full: GateContext = { ...context, slots: new Map() };
  const verdicts = new Map<string, GateVerdict>();
  let remaining = candidates;
  for (const check of checks) {
    if (remaining.length === 0) break;
    const stopped = await check.run(full, remaining);
    for (const [callId, verdict] of stopped) verdicts.set(callId, verdict);
    remaining = remaining.filter((candidate) => !stopped.has(candidate.call.id));
  }
  return { verdicts, slots: full.slots };
}
