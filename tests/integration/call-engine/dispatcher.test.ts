import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { eq, inArray } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { POST as voiceEventsRoute } from "@/app/api/voice/events/route";
import { calls, organizations, sequences } from "@/db/schema";
import { getMetrics } from "@/server/observability/metrics";
import { pickFromPhoneNumber } from "@/server/services/call-engine/call-context";
import { dispatchDueCalls } from "@/server/services/call-engine/dial-call";
import { dialChecks, type DialCheck } from "@/server/services/call-engine/dial-gate";
import { createSimulatedVoiceEngine } from "@/server/voice/simulator/simulator";
import { createFetchTransport } from "@/server/voice/transport";
import type { VoiceEngine } from "@/server/voice/types";
import { createTestClock, type TestClock } from "@/tests/helpers/inngest";
import { useTestDb } from "@/tests/helpers/db";
import { callStep, createEngineOrganization, enroll, setAgentStatus } from "./harness";

/**
 * The dispatcher's round (`dispatchDueCalls`) against the test database: the dial gate in the claim transaction, the
 * dial-rate limits, two dispatchers at once, and a dispatcher killed between its claim and the placements.
 */
const db = useTestDb();
const START = new Date("2026-03-02T15:00:00Z");

beforeAll(() => {
  process.env.DATA_DIR = mkdtempSync(path.join(os.tmpdir(), "call-engine-dispatcher-"));
  // The slot counts below are for a one-second planning horizon (the default is two).
  process.env.CALL_DISPATCH_HORIZON_MS = "1000";
});

function simulator(clock: TestClock) {
  return createSimulatedVoiceEngine({
    pace: "manual",
    now: clock.now,
    transport: createFetchTransport({ url: "http://localhost/api/voice/events", fetch: (request) => voiceEventsRoute(request) }),
  });
}

/** An organization whose agent has `numbers` caller IDs and `count` calls due at START (no event sent). */
async function dueCalls(count: number, options: { numbers?: number; dialRate?: number } = {}) {
  const { organization, agent } = await createEngineOrganization(db, { steps: [callStep()] }, { poolAreaCodes: Array.from({ length: options.numbers ?? 10 }, () => "646") });
  if (options.dialRate) await db.update(organizations).set({ dialRatePerSecond: options.dialRate }).where(eq(organizations.id, organization.id));
  const sequenceIds: string[] = [];
  for (let i = 0; i < count; i++) {
    const created = await enroll(db, { agent, phoneNumber: `+1303555${String(1000 + i)}`, bypassCallWindows: true, scheduledAt: START, now: START, withoutRunner: true });
    sequenceIds.push(created.sequenceId);
  }
  const rows = () => db.select().from(calls).where(inArray(calls.sequenceId, sequenceIds));
  return { organization, agent, sequenceIds, rows };
}

const noWait = async () => {};

/** Runs `work` with the per-number limit out of the way (the organization's limit alone decides). */
async function withoutNumberLimit<T>(work: () => Promise<T>): Promise<T> {
  process.env.CALL_DIAL_RATE_PER_NUMBER_PER_SECOND = "1000";
  try {
    return await work();
  } finally {
    delete process.env.CALL_DIAL_RATE_PER_NUMBER_PER_SECOND;
  }
}

describe("dispatcher: dial gate and dial-rate limits", () => {
  it("paces an organization at its dial-rate limit: slots 1/rate apart from the due time, the rest waits", async () => {
    const clock = createTestClock(START);
    const engine = simulator(clock);
    const { organization, rows } = await dueCalls(40);
    const first = await withoutNumberLimit(() => dispatchDueCalls(db, { clock: clock.now, voiceEngine: engine, organizationIds: [organization.id], waitUntil: noWait }));
    // Default 10/s over the one-second planning horizon (a slot never precedes the due time). The claim examined its
    // capacity (11 slots) plus a 10 % margin (2), not the 40 due: the margin's calls wait for a later claim.
    expect(first.dialed).toBe(11);
    expect(first.waiting).toBe(2);
    expect(first.claims).toBe(1);
    expect(first.nextAt).not.toBeNull();
    let dialed = (await rows()).filter((row) => row.dialSlotAt);
    const slots = dialed.map((row) => row.dialSlotAt!.getTime()).sort((a, b) => a - b);
    for (let i = 1; i < slots.length; i++) expect(slots[i]! - slots[i - 1]!).toBe(100);
    expect(slots[0]).toBe(START.getTime());
    for (const row of dialed) {
      expect(row.resultType).toBe("Calling");
      expect(row.providerCallId).toMatch(/^sim-/);
      expect(row.dialedAt).toEqual(START);
    }
    // One second later: ten more (the cursor moved on by 1 s).
    clock.set(new Date(START.getTime() + 1000));
    const second = await withoutNumberLimit(() => dispatchDueCalls(db, { clock: clock.now, voiceEngine: engine, organizationIds: [organization.id], waitUntil: noWait }));
    expect(second.dialed).toBe(10);
    dialed = (await rows()).filter((row) => row.dialSlotAt);
    expect(new Set(dialed.map((row) => row.dialSlotAt!.getTime())).size).toBe(21);
    for (const row of dialed) expect(engine.dialCount(row.id)).toBe(1);
  });

  it("honours the organization's own limit and the per-number limit (5/s per caller ID)", async () => {
    const clock = createTestClock(START);
    const engine = simulator(clock);
    const fast = await dueCalls(60, { dialRate: 20 });
    const round = await withoutNumberLimit(() => dispatchDueCalls(db, { clock: clock.now, voiceEngine: engine, organizationIds: [fast.organization.id], waitUntil: noWait }));
    expect(round.dialed).toBe(21); // 20/s over the one-second horizon, plus the first slot
    const single = await dueCalls(20, { numbers: 1, dialRate: 50 });
    const paced = await dispatchDueCalls(db, { clock: clock.now, voiceEngine: engine, organizationIds: [single.organization.id], waitUntil: noWait });
    expect(paced.dialed).toBe(6); // one caller ID: 5/s
    const slots = (await single.rows())
      .filter((row) => row.dialSlotAt)
      .map((row) => row.dialSlotAt!.getTime())
      .sort((a, b) => a - b);
    for (let i = 1; i < slots.length; i++) expect(slots[i]! - slots[i - 1]!).toBe(200);
  });

  it("a busy caller ID delays only its own calls: a burst whose calls come three per caller ID still gets every organization slot", async () => {
    const clock = createTestClock(START);
    const engine = simulator(clock);
    // 50/s for the organization, 20 caller IDs at the default 5/s (100/s together), 60 calls due in this order: three
    // in a row from each caller ID (each call's caller ID is picked from its contact's number).
    const { organization, agent } = await createEngineOrganization(db, { steps: [callStep()] }, { poolAreaCodes: Array.from({ length: 20 }, () => "646") });
    const phoneNumbers = agent.phoneNumbers;
    await db.update(organizations).set({ dialRatePerSecond: 50 }).where(eq(organizations.id, organization.id));
    const byCallerId = new Map<string, string[]>();
    for (let i = 0; byCallerId.size < 20 || [...byCallerId.values()].some((numbers) => numbers.length < 3); i++) {
      const contact = `+1303556${String(1000 + i)}`;
      const callerId = pickFromPhoneNumber(phoneNumbers, contact);
      byCallerId.set(callerId, [...(byCallerId.get(callerId) ?? []), contact]);
    }
    const ordered = [...byCallerId.values()].flatMap((numbers) => numbers.slice(0, 3));
    const sequenceIds: string[] = [];
    for (const [i, phoneNumber] of ordered.entries()) {
      // Due one millisecond apart, so the claim examines them in this order.
      const scheduledAt = new Date(START.getTime() + i);
      const created = await enroll(db, { agent, phoneNumber, bypassCallWindows: true, scheduledAt, now: START, withoutRunner: true });
      sequenceIds.push(created.sequenceId);
    }
    clock.set(new Date(START.getTime() + 100));
    const round = await dispatchDueCalls(db, { clock: clock.now, voiceEngine: engine, organizationIds: [organization.id], waitUntil: noWait });
    // From the first due time (burst credit) to the end of the one-second horizon, START + 1.1 s, the organization has
    // 56 slots: every one is used, 20 ms apart, and no caller ID dials twice within 200 ms.
    expect(round.dialed).toBe(56);
    const dialed = (await db.select().from(calls).where(inArray(calls.sequenceId, sequenceIds))).filter((row) => row.dialSlotAt);
    const slots = dialed.map((row) => row.dialSlotAt!.getTime()).sort((a, b) => a - b);
    for (let i = 1; i < slots.length; i++) expect(slots[i]! - slots[i - 1]!).toBe(20);
    const perCallerId = new Map<string, number[]>();
    for (const row of dialed) {
      const callerId = row.fromPhoneNumber;
      expect(phoneNumbers).toContain(callerId);
      perCallerId.set(callerId, [...(perCallerId.get(callerId) ?? []), row.dialSlotAt!.getTime()]);
    }
    for (const times of perCallerId.values()) {
      times.sort((a, b) => a - b);
      for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(200);
    }
  });

  it("re-checks in the claim transaction: a cancelled sequence's call is cancelled, a paused agent's call waits", async () => {
    const clock = createTestClock(START);
    const engine = simulator(clock);
    const cancelled = await dueCalls(2);
    // Cancelled by reference after the call was scheduled, the call row still `Scheduled` (as if the cancel raced the claim).
    await db.update(sequences).set({ lifecycleStatus: "cancelled" }).where(eq(sequences.id, cancelled.sequenceIds[0]!));
    const paused = await dueCalls(1);
    await setAgentStatus(db, paused.agent.id, "PAUSED");
    const round = await dispatchDueCalls(db, {
      clock: clock.now,
      voiceEngine: engine,
      organizationIds: [cancelled.organization.id, paused.organization.id],
      waitUntil: noWait,
    });
    expect(round.cancelled).toBe(1);
    expect(round.deferred).toBe(1);
    expect(round.dialed).toBe(1);
    const [cancelledCall, dialedCall] = await Promise.all(cancelled.sequenceIds.map(async (id) => (await db.select().from(calls).where(eq(calls.sequenceId, id)))[0]!));
    expect(cancelledCall!.resultType).toBe("Cancelled");
    expect(engine.dialCount(cancelledCall!.id)).toBe(0);
    expect(dialedCall!.resultType).toBe("Calling");
    const [pausedCall] = await paused.rows();
    expect(pausedCall!.resultType).toBe("Scheduled");
    expect(pausedCall!.scheduledAt).toEqual(new Date(START.getTime() + 300_000));
    expect(pausedCall!.rescheduledAt).toEqual(START);
    expect(engine.dialCount(pausedCall!.id)).toBe(0);
    expect(pausedCall!.dialSlotAt).toBeNull();
  });

  it("two dispatchers at once never dial a call twice and never hand out the same slot", async () => {
    const clock = createTestClock(START);
    const engine = simulator(clock);
    const { organization, rows } = await dueCalls(40, { dialRate: 50 });
    let placements = 0;
    const counting: VoiceEngine = { ...engine, kind: "counting", placeCall: async (request) => ((placements += 1), engine.placeCall(request)) };
    const results = await Promise.all(
      [0, 1].map(() => dispatchDueCalls(db, { clock: clock.now, voiceEngine: counting, organizationIds: [organization.id], waitUntil: noWait, limit: 25 })),
    );
    clock.set(new Date(START.getTime() + 2000));
    const last = await dispatchDueCalls(db, { clock: clock.now, voiceEngine: counting, organizationIds: [organization.id], waitUntil: noWait });
    expect(results[0]!.dialed + results[1]!.dialed + last.dialed).toBe(40);
    expect(placements).toBe(40);
    const all = await rows();
    expect(all.every((row) => row.resultType === "Calling" && engine.dialCount(row.id) === 1)).toBe(true);
    expect(new Set(all.map((row) => row.dialSlotAt!.getTime())).size).toBe(40);
  });

  it("a dispatcher killed between its claim and the placements: the claimed calls are placed once, after the retry delay", async () => {
    const clock = createTestClock(START);
    const engine = simulator(clock);
    const { organization, rows } = await dueCalls(5);
    const killed = dispatchDueCalls(db, {
      clock: clock.now,
      voiceEngine: engine,
      organizationIds: [organization.id],
      waitUntil: async () => {
        throw new Error("process killed");
      },
    });
    await expect(killed).rejects.toThrow("process killed");
    let claimed = await rows();
    expect(claimed.every((row) => row.resultType === "Calling" && row.providerCallId === null && row.dialAttempts === 1)).toBe(true);
    expect(claimed.every((row) => engine.dialCount(row.id) === 0)).toBe(true);
    // Too early: the retry delay (10 s) has not passed.
    const early = await dispatchDueCalls(db, { clock: clock.now, voiceEngine: engine, organizationIds: [organization.id], waitUntil: noWait });
    expect(early.dialed).toBe(0);
    expect(early.nextAt).toBe(new Date(START.getTime() + 10_000).toISOString());
    clock.set(new Date(START.getTime() + 10_000));
    const recovered = await dispatchDueCalls(db, { clock: clock.now, voiceEngine: engine, organizationIds: [organization.id], waitUntil: noWait });
    expect(recovered.dialed).toBe(5);
    claimed = await rows();
    expect(claimed.every((row) => row.providerCallId !== null && engine.dialCount(row.id) === 1 && row.dialAttempts === 2)).toBe(true);
    const again = await dispatchDueCalls(db, { clock: clock.now, voiceEngine: engine, organizationIds: [organization.id], waitUntil: noWait });
    expect(again.dialed).toBe(0);
  });
});

/**
 * Virtual time for a dispatcher step: `waitUntil` parks the caller until the clock reaches the moment; when nothing
 * has happened for a few milliseconds (the step's queries are done and everything waits), the clock jumps to the
 * earliest parked moment and wakes it. A claim thus reads exactly the moment it waited for.
 */
// How long nothing must happen before the clock jumps: a woken placement's queries must be done by then, also on a
// loaded machine (at 25 ms, calls were placed 50 ms after their slot when the suite ran on two busy cores).
const QUIET_MS = 100;

function virtualTime(clock: TestClock, options: { fail?: (at: Date) => Error | null } = {}) {
  const waiters: Array<{ at: number; resolve: () => void; reject: (error: Error) => void }> = [];
  let lastActivity = performance.now();
  const timer = setInterval(() => {
    if (waiters.length === 0 || performance.now() - lastActivity < QUIET_MS) return;
    waiters.sort((a, b) => a.at - b.at);
    const at = waiters[0]!.at;
    if (at > clock.now().getTime()) clock.set(new Date(at));
    const due = waiters.filter((waiter) => waiter.at <= at);
    waiters.splice(0, due.length);
    for (const waiter of due) {
      const error = options.fail?.(new Date(waiter.at));
      if (error) waiter.reject(error);
      else waiter.resolve();
    }
    lastActivity = performance.now();
  }, 5);
  const waitUntil = (at: Date) => {
    lastActivity = performance.now();
    if (at.getTime() <= clock.now().getTime()) return Promise.resolve();
    return new Promise<void>((resolve, reject) => waiters.push({ at: at.getTime(), resolve, reject }));
  };
  return { waitUntil, stop: () => clearInterval(timer) };
}

/** A gate check placed first that records what each claim examined (it stops nothing). */
function claimRecorder() {
  const claims: Array<{ at: number; callIds: string[] }> = [];
  const check: DialCheck = {
    name: "record-claim",
    run: ({ now }, candidates) => {
      claims.push({ at: now.getTime(), callIds: candidates.map((candidate) => candidate.call.id) });
      return new Map();
    },
  };
  return { claims, checks: [check, ...dialChecks] };
}

describe("dispatcher: the pipelined step", () => {
  it("places calls whose slots span several horizons in one step, claiming the next horizon before the current one's placements end; a claim examines no more than its capacity", async () => {
    const clock = createTestClock(START);
    const engine = simulator(clock);
    const placedAt = new Map<string, number>();
    const timed: VoiceEngine = { ...engine, kind: "timed", placeCall: async (request) => (placedAt.set(request.callId, clock.now().getTime()), engine.placeCall(request)) };
    const { organization, rows } = await dueCalls(80, { dialRate: 20 });
    const time = virtualTime(clock);
    const recorder = claimRecorder();
    const step = await withoutNumberLimit(() =>
      dispatchDueCalls(db, { clock: clock.now, voiceEngine: timed, organizationIds: [organization.id], waitUntil: time.waitUntil, budgetMs: 2500, checks: recorder.checks }),
    ).finally(time.stop);
    // Claims at +0, +0.5, +1, +1.5 and +2 s (the next, at +2.5 s, is past the budget), each planning one second ahead.
    expect(step.claims).toBe(5);
    expect(recorder.claims.map((claim) => claim.at - START.getTime())).toEqual([0, 500, 1000, 1500, 2000]);
    const dialed = (await rows()).filter((row) => row.dialSlotAt);
    expect(step.dialed).toBe(dialed.length);
    expect(dialed.length).toBe(61); // 20/s from +0 to +3 s, both ends included
    const slots = dialed.map((row) => row.dialSlotAt!.getTime()).sort((a, b) => a - b);
    expect(slots.at(-1)! - slots[0]!).toBe(3000); // three horizons in one step
    for (const row of dialed) {
      expect(row.providerCallId).toMatch(/^sim-/);
      expect(engine.dialCount(row.id)).toBe(1);
      // Placed at its slot (never before), and recorded with that time.
      expect(placedAt.get(row.id)).toBe(row.dialSlotAt!.getTime());
      expect(row.dialedAt).toEqual(row.dialSlotAt);
    }
    // Pipelined: each claim came before the previous claim's last placement.
    for (let k = 1; k < recorder.claims.length; k++) {
      const previousPlacements = recorder.claims[k - 1]!.callIds.map((id) => placedAt.get(id) ?? 0);
      expect(Math.max(...previousPlacements)).toBeGreaterThan(recorder.claims[k]!.at);
    }
    // 80 due the whole time, yet no claim examined more than its capacity (21 slots in the first second, then 10 per
    // half second) plus the margin.
    expect(recorder.claims.map((claim) => claim.callIds.length)).toEqual([21 + 3, 10 + 1, 10 + 1, 10 + 1, 10 + 1]);
  });

  it("one organization's backlog does not hide another organization's single due call: each gets its own capacity in the claim", async () => {
    const clock = createTestClock(START);
    const engine = simulator(clock);
    const busy = await dueCalls(60);
    // The other organization's call falls due a little later than the whole backlog (the claim orders by due time).
    const quiet = await dueCalls(0);
    const single = await enroll(db, { agent: quiet.agent, phoneNumber: "+13035559999", bypassCallWindows: true, scheduledAt: new Date(START.getTime() + 1), now: START, withoutRunner: true });
    clock.set(new Date(START.getTime() + 1));
    const recorder = claimRecorder();
    const step = await withoutNumberLimit(() =>
      dispatchDueCalls(db, { clock: clock.now, voiceEngine: engine, organizationIds: [busy.organization.id, quiet.organization.id], waitUntil: noWait, checks: recorder.checks, limit: 20 }),
    );
    expect(step.claims).toBe(1);
    const [call] = await db.select().from(calls).where(eq(calls.sequenceId, single.sequenceId));
    expect(call!.resultType).toBe("Calling");
    expect(engine.dialCount(call!.id)).toBe(1);
    // The busy organization's part of the claim is its capacity (11 slots + margin), not the 60 due nor the limit of 20.
    expect(recorder.claims[0]!.callIds.length).toBe(11 + 2 + 1);
  });

  it("a step that dies mid-way (a placement's answer lost, then the process) and its retry: every call placed once", async () => {
    const clock = createTestClock(START);
    const engine = simulator(clock);
    const { organization, rows } = await dueCalls(30, { dialRate: 20 });
    let placements = 0;
    const flaky: VoiceEngine = {
      ...engine,
      kind: "flaky",
      placeCall: async (request) => {
        placements += 1;
        const placed = await engine.placeCall(request);
        // The provider accepted the 5th call, but its answer never arrived.
        if (placements === 5) throw new Error("connection reset");
        return placed;
      },
    };
    const killAt = START.getTime() + 700;
    const crashing = virtualTime(clock, { fail: (at) => (at.getTime() >= killAt ? new Error("process killed") : null) });
    await expect(
      withoutNumberLimit(() => dispatchDueCalls(db, { clock: clock.now, voiceEngine: flaky, organizationIds: [organization.id], waitUntil: crashing.waitUntil, budgetMs: 5000 })),
    ).rejects.toThrow("process killed");
    crashing.stop();
    const afterCrash = await rows();
    const unplaced = afterCrash.filter((row) => row.resultType === "Calling" && row.providerCallId === null);
    expect(unplaced.length).toBeGreaterThan(1); // the lost answer and the calls claimed for slots after the crash
    expect(afterCrash.filter((row) => row.providerCallId).length).toBeGreaterThan(5);
    // The retry (the step again, same moment): claimed-but-unplaced calls are not placed before the retry delay.
    const retry = virtualTime(clock);
    const again = await withoutNumberLimit(() =>
      dispatchDueCalls(db, { clock: clock.now, voiceEngine: flaky, organizationIds: [organization.id], waitUntil: retry.waitUntil, budgetMs: 3000 }),
    );
    for (const row of unplaced) expect((await rows()).find((r) => r.id === row.id)!.providerCallId).toBeNull();
    clock.set(new Date(START.getTime() + 15_000));
    const recovered = await withoutNumberLimit(() =>
      dispatchDueCalls(db, { clock: clock.now, voiceEngine: flaky, organizationIds: [organization.id], waitUntil: retry.waitUntil, budgetMs: 0 }),
    ).finally(retry.stop);
    expect(again.dialed + recovered.dialed).toBeGreaterThan(0);
    const all = await rows();
    expect(all.every((row) => row.resultType === "Calling" && row.providerCallId !== null)).toBe(true);
    expect(all.every((row) => engine.dialCount(row.id) === 1)).toBe(true);
    const lost = all.find((row) => !afterCrash.find((r) => r.id === row.id)!.providerCallId && row.dialAttempts === 2);
    expect(lost).toBeDefined();
  });

  it("a call a running step still holds (a slow provider) is never recovered by another dispatcher", async () => {
    const clock = createTestClock(START);
    const engine = simulator(clock);
    const { organization, rows } = await dueCalls(30, { dialRate: 2 });
    let release = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    const calls: string[] = [];
    let first: string | null = null;
    const slow: VoiceEngine = {
      ...engine,
      kind: "slow",
      placeCall: async (request) => {
        calls.push(request.callId);
        first ??= request.callId;
        if (request.callId === first) await released;
        return engine.placeCall(request);
      },
    };
    const time = virtualTime(clock);
    const step = dispatchDueCalls(db, { clock: clock.now, voiceEngine: slow, organizationIds: [organization.id], waitUntil: time.waitUntil, budgetMs: 14_000 });
    // Another dispatcher 12 s later (past the 10 s retry delay of the first call's claim).
    while (clock.now().getTime() < START.getTime() + 12_000) await new Promise((resolve) => setTimeout(resolve, 10));
    const other = await dispatchDueCalls(db, { clock: clock.now, voiceEngine: engine, organizationIds: [organization.id], waitUntil: async () => {}, budgetMs: 0 });
    release();
    const result = await step.finally(time.stop);
    expect(other.claims).toBe(1);
    expect(calls.filter((id) => id === first)).toHaveLength(1);
    expect(engine.dialCount(first!)).toBe(1);
    const held = (await rows()).find((row) => row.id === first)!;
    expect(held.providerCallId).toMatch(/^sim-/);
    expect(held.dialAttempts).toBe(1);
    expect(result.dialed).toBeGreaterThan(20);
  });
});

describe("dispatcher: backpressure (the analysis backlog)", () => {
  /** Ended calls of `organizationId` awaiting analysis: `count` sequences whose call is `Processing Analysis`. */
  async function analysisBacklog(agent: Awaited<ReturnType<typeof dueCalls>>["agent"], count: number) {
    const callIds: string[] = [];
    for (let i = 0; i < count; i++) {
      const created = await enroll(db, { agent, phoneNumber: `+1303557${String(1000 + i)}`, bypassCallWindows: true, scheduledAt: START, now: START, withoutRunner: true });
      const [call] = await db
        .update(calls)
        .set({ resultType: "Processing Analysis", dialedAt: START, endedAt: START, providerCallId: `sim-backlog-${created.sequenceId}` })
        .where(eq(calls.sequenceId, created.sequenceId))
        .returning({ id: calls.id });
      callIds.push(call!.id);
    }
    return callIds;
  }
  const analysed = (callIds: string[]) => db.update(calls).set({ resultType: "Goal Not Completed", analyzedAt: START }).where(inArray(calls.id, callIds));
  const heldClaims = async () => (await getMetrics().dispatchBackpressure.get()).values.find((value) => value.labels.effect === "held")?.value ?? 0;

  it("claims nothing while the backlog is at its bound, only the room left below it, and dials at the rate once it drains", async () => {
    process.env.CALL_DISPATCH_MAX_ANALYSIS_BACKLOG = "30";
    try {
      const clock = createTestClock(START);
      const engine = simulator(clock);
      const { organization, agent, rows } = await dueCalls(40);
      const backlog = await analysisBacklog(agent, 35);
      const tick = () => withoutNumberLimit(() => dispatchDueCalls(db, { clock: clock.now, voiceEngine: engine, organizationIds: [organization.id], waitUntil: noWait }));

      // 35 ended calls await analysis, bound 30: no call is claimed (the count stops at bound + 1); the step says when
      // to look again (half a horizon on), and the metric counts the held claim.
      const heldBefore = await heldClaims();
      const held = await tick();
      expect(held.dialed).toBe(0);
      expect(held.claims).toBe(1);
      expect(held.heldBack).toBe(1);
      expect(held.backlog).toBe(31);
      expect(held.nextAt).toBe(new Date(START.getTime() + 500).toISOString());
      expect((await rows()).every((row) => row.resultType === "Scheduled" && row.dialSlotAt === null)).toBe(true);
      expect(await heldClaims()).toBe(heldBefore + 1);

      // Seven analysed: 28 left, room for 2 — the claim takes two calls although the rate has 11 slots.
      await analysed(backlog.slice(0, 7));
      clock.set(new Date(START.getTime() + 1000));
      const lowered = await tick();
      expect(lowered.heldBack).toBe(0);
      expect(lowered.backlog).toBe(28);
      expect(lowered.dialed).toBe(2);
      expect((await rows()).filter((row) => row.resultType === "Calling")).toHaveLength(2);

      // Drained (room for 30): the organization's dial rate (10/s, a second's burst credit) alone decides again —
      // slots 100 ms apart from START + 1 s (the cursor raised to now − 1 s) to the horizon's end, START + 3 s.
      await analysed(backlog.slice(7));
      clock.set(new Date(START.getTime() + 2000));
      const resumed = await tick();
      expect(resumed.backlog).toBe(0);
      expect(resumed.heldBack).toBe(0);
      expect(resumed.dialed).toBe(21);
      const slots = (await rows())
        .filter((row) => row.dialSlotAt)
        .map((row) => row.dialSlotAt!.getTime())
        .sort((a, b) => a - b);
      expect(slots).toHaveLength(23);
      for (let i = 1; i < slots.length; i++) expect(slots[i]! - slots[i - 1]!).toBeGreaterThanOrEqual(100);
    } finally {
      delete process.env.CALL_DISPATCH_MAX_ANALYSIS_BACKLOG;
    }
  });

  it("a held step measures again at each claim (every half horizon) and resumes within the step once the backlog drains", async () => {
    process.env.CALL_DISPATCH_MAX_ANALYSIS_BACKLOG = "30";
    try {
      const clock = createTestClock(START);
      const engine = simulator(clock);
      const { organization, agent, rows } = await dueCalls(40);
      const backlog = await analysisBacklog(agent, 30);
      const time = virtualTime(clock);
      const recorder = claimRecorder();
      // The analysis catches up at START + 1 s, before that moment's claim.
      let drained = false;
      const waitUntil = async (at: Date) => {
        await time.waitUntil(at);
        if (!drained && at.getTime() >= START.getTime() + 1000) {
          drained = true;
          await analysed(backlog);
        }
      };
      const step = await withoutNumberLimit(() =>
        dispatchDueCalls(db, { clock: clock.now, voiceEngine: engine, organizationIds: [organization.id], waitUntil, budgetMs: 2500, checks: recorder.checks }),
      ).finally(time.stop);
      // Claims at +0, +0.5 (held: nothing examined, the gate never ran), then +1, +1.5, +2 s at the rate's pace.
      expect(step.claims).toBe(5);
      expect(step.heldBack).toBe(2);
      expect(step.backlog).toBe(0);
      expect(recorder.claims.map((claim) => claim.at - START.getTime())).toEqual([1000, 1500, 2000]);
      const slots = (await rows())
        .filter((row) => row.dialSlotAt)
        .map((row) => row.dialSlotAt!.getTime())
        .sort((a, b) => a - b);
      expect(step.dialed).toBe(slots.length);
      // 10/s from START + 1 s (a second's burst credit: the cursor raised to START) … the last horizon's end, START + 3 s.
      expect(slots[0]).toBeGreaterThanOrEqual(START.getTime());
      expect(slots.at(-1)).toBeLessThanOrEqual(START.getTime() + 3000);
      for (let i = 1; i < slots.length; i++) expect(slots[i]! - slots[i - 1]!).toBe(100);
    } finally {
      delete process.env.CALL_DISPATCH_MAX_ANALYSIS_BACKLOG;
    }
  });

  it("a bound of 0 turns the rule off: the backlog is not measured and the rate decides", async () => {
    process.env.CALL_DISPATCH_MAX_ANALYSIS_BACKLOG = "0";
    try {
      const clock = createTestClock(START);
      const engine = simulator(clock);
      const { organization, agent } = await dueCalls(20);
      await analysisBacklog(agent, 3);
      const step = await withoutNumberLimit(() => dispatchDueCalls(db, { clock: clock.now, voiceEngine: engine, organizationIds: [organization.id], waitUntil: noWait }));
      expect(step.backlog).toBeNull();
      expect(step.dialed).toBe(11);
    } finally {
      delete process.env.CALL_DISPATCH_MAX_ANALYSIS_BACKLOG;
    }
  });
});
