import { createHmac, randomInt } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/db";
import { callEvents, numberDailyStats, numberHealthMonitors, numbers, webhookDeliveries } from "@/db/schema";
import { isCallableNumberSql } from "@/db/queries/numbers";
import { inngest } from "@/inngest/client";
import { createDeliverWebhookFunction } from "@/inngest/functions/deliver-webhook";
import { createNumberHealthSweepFunction } from "@/inngest/functions/number-health-sweep";
import { ruleBasedAnalyzer } from "@/server/analysis/rule-based";
import { analyzeEndedCall } from "@/server/services/call-engine/analyze-call";
import { dialDueCall } from "@/server/services/call-engine/dial-call";
import { finalizeCall } from "@/server/services/call-engine/finalize-call";
import { handleVoiceProviderEvent } from "@/server/services/call-engine/voice-events";
import { newId } from "@/server/ids";
import { createSimulatedVoiceEngine } from "@/server/voice/simulator/simulator";
import { receiveSms } from "@/server/services/messaging/receive-sms";
import { evaluateNumberHealthAfterCall, findNumberHealth, findPoolRest, NUMBER_HEALTH_RULE, recordNumberCall } from "@/server/services/numbers/health";
import { LOOPBACK_ADDRESS_POLICY } from "@/server/services/webhooks/address-guard";
import { createWebhookEndpoint } from "@/server/services/webhooks/manage-endpoints";
import { applyStatusCallback, claimDial } from "@/server/voice/twilio-realtime/call-state";
import { createTestAgent, createTestCall, createTestOrganization, createTestSequence } from "@/tests/factories";
import { apiClient } from "@/tests/helpers/api";
import { useTestDb } from "@/tests/helpers/db";
import { createTestClock, startTestInngest } from "@/tests/helpers/inngest";
import { AGENT_DEFINITIONS, callStep, enroll } from "../call-engine/harness";
import { dashboardCaller, startReceiver, useTestEncryptionKey } from "../webhooks/fixtures";

useTestEncryptionKey();
const db = useTestDb();
beforeAll(() => {
  process.env.DATA_DIR = mkdtempSync(path.join(os.tmpdir(), "number-health-"));
});

/** A fictional US number no other test holds (the active-number index is unique across organizations). */
function freshNumber(): string {
  return `+1${randomInt(2, 10)}${randomInt(0, 10)}${randomInt(0, 10)}555${String(randomInt(0, 10_000)).padStart(4, "0")}`;
}

async function insertNumber(db: Db, organizationId: string, phoneNumber: string) {
  const [row] = await db
    .insert(numbers)
    .values({ id: newId("number"), organizationId, phoneNumber, carrier: "simulator", source: "platform-account", status: "active", voice: true, sms: true })
    .returning();
  return row!;
}

async function healthOf(db: Db, numberId: string) {
  const [row] = await db.select().from(numbers).where(eq(numbers.id, numberId));
  return row!;
}

let contactCounter = 0;
/** A New York contact whose call the simulator ends answered by a person (digit 1) or in voicemail (digit 2). */
function contactNumber(answered: boolean): string {
  contactCounter += 1;
  return `+12129${String(contactCounter).padStart(5, "0")}${answered ? 1 : 2}`;
}

/**
 * One call through the call engine's own services, as the demo history drives them (no Inngest, no HTTP): the dial
 * gate and dialDueCall → the simulator (outcome by the contact's last digit) → handleVoiceProviderEvent →
 * analyzeEndedCall (rule-based) → finalizeCall, which counts the call on its number and judges the number after commit.
 */
async function driveCall(db: Db, params: { agent: Parameters<typeof enroll>[1]["agent"]; contact: string; now: Date }): Promise<"dialed" | "not dialed"> {
  let clock = params.now;
  const simulator = createSimulatedVoiceEngine({
    pace: "manual",
    eventTimes: "simulated",
    now: () => clock,
    transport: async (event) => {
      const outcome = await handleVoiceProviderEvent(db, { event });
      return outcome.status === "accepted" ? (outcome.toolResult ?? null) : null;
    },
  });
  try {
    const { firstCall } = await enroll(db, { agent: params.agent, phoneNumber: params.contact, now: params.now, withoutRunner: true });
    const dial = await dialDueCall(db, { callId: firstCall!.callId, now: clock, voiceEngine: simulator });
    if (dial.status !== "dialed") return "not dialed";
    await simulator.runPending(firstCall!.callId);
    const analysis = await analyzeEndedCall(db, { callId: firstCall!.callId, analyzer: ruleBasedAnalyzer });
    clock = new Date(clock.getTime() + 60_000);
    await finalizeCall(db, { callId: firstCall!.callId, analysis: analysis!, now: clock });
    return "dialed";
  } finally {
    await simulator.close();
  }
}

describe("number health, closed loop, on the simulated call engine", () => {
  it("rests a number whose answer rate drops from 40 % to 5 % within the rule's sample size: out of the rotation, one number.health_changed event in the feed and the webhook log, back under watch after its rest", async () => {
    const start = new Date("2026-03-02T15:00:00Z");
    const clock = createTestClock(start);
    const { organization, apiKey } = await createTestOrganization(db, { monthlyCreditAllocation: 100_000 });
    const runner = await startTestInngest({
      db,
      clock,
      functions: [
        createDeliverWebhookFunction(inngest, { getDb: () => db, now: clock.now, addressPolicy: () => LOOPBACK_ADDRESS_POLICY }),
        createNumberHealthSweepFunction(inngest, { getDb: () => db, now: clock.now, organizationIds: () => [organization.id] }),
      ],
    });
    try {
      const bad = await insertNumber(db, organization.id, freshNumber());
      const peers = [await insertNumber(db, organization.id, freshNumber()), await insertNumber(db, organization.id, freshNumber())];
      const steps = [callStep()];
      const badAgent = await createTestAgent(db, organization.id, { name: "Ava", phoneNumbers: [bad.phoneNumber], steps, ...AGENT_DEFINITIONS });
      const peerAgent = await createTestAgent(db, organization.id, { name: "Ben", phoneNumbers: peers.map((peer) => peer.phoneNumber), steps, ...AGENT_DEFINITIONS });
      const receiver = await startReceiver();
      const { secret } = await createWebhookEndpoint(db, { organizationId: organization.id, url: receiver.url, eventTypes: ["number.health_changed"], policy: LOOPBACK_ADDRESS_POLICY });

      // History: every number answered at 40 % (2 of every 5 calls), the calls of the three numbers interleaved.
      for (let index = 0; index < 150; index += 1) {
        const answered = index % 5 < 2;
        expect(await driveCall(db, { agent: index % 3 === 0 ? badAgent : peerAgent, contact: contactNumber(answered), now: start })).toBe("dialed");
      }
      expect((await healthOf(db, bad.id)).health).toBe("healthy");
      const [badDay] = await db.select().from(numberDailyStats).where(and(eq(numberDailyStats.organizationId, organization.id), eq(numberDailyStats.phoneNumber, bad.phoneNumber)));
      expect(badDay).toMatchObject({ day: "2026-03-02", placed: 50, answered: 20, voicemail: 30, noAnswer: 0, busy: 0, failed: 0, strata: { "US-NY|3": [50, 20] } });

      // Then people stop answering it: 1 call in 20 (5 %), until the rule rests it.
      let dropCalls = 0;
      while ((await healthOf(db, bad.id)).health === "healthy" && dropCalls < 200) {
        expect(await driveCall(db, { agent: badAgent, contact: contactNumber(dropCalls % 20 === 0), now: start })).toBe("dialed");
        dropCalls += 1;
      }
      const rested = await healthOf(db, bad.id);
      expect(rested.health).toBe("resting");
      // Within the stated sample size (docs/numbers.md: 61 calls at the bench's 90th percentile), not before the rule's minimum run.
      expect(dropCalls).toBeLessThanOrEqual(61);
      expect(dropCalls).toBeGreaterThanOrEqual(NUMBER_HEALTH_RULE.rest.minCalls);
      expect(rested.healthReason).toMatch(/^answered [0-3] of \d+ calls \(\d+ %\) against (3[5-9]|4[0-5]) % for your other numbers to the same places and hours$/);
      expect(rested.restingUntil!.getTime() - rested.healthChangedAt!.getTime()).toBe(72 * 3_600_000);
      for (const peer of peers) expect((await healthOf(db, peer.id)).health).toBe("healthy");

      // Out of the rotation: not callable until its rest is over; its whole pool rests, so its calls wait and say why.
      const callable = async (at: Date) =>
        (await db.select({ id: numbers.id }).from(numbers).where(isCallableNumberSql({ organizationId: organization.id, phoneNumber: bad.phoneNumber, now: at }))).length > 0;
      expect(await callable(start)).toBe(false);
      const pool = await findPoolRest(db, { organizationId: organization.id, phoneNumbers: [bad.phoneNumber], now: start });
      expect(pool).toMatchObject({ allResting: true, nextBackAt: rested.restingUntil!.toISOString() });
      expect(pool.message).toContain("Calls are waiting");
      expect((await findPoolRest(db, { organizationId: organization.id, phoneNumbers: peers.map((peer) => peer.phoneNumber), now: start })).allResting).toBe(false);
      // The agent's page asks through the console's procedure; another organization's agent is not found.
      const member = await dashboardCaller(db, organization.id, "member", clock.now);
      expect(await member.agents.poolRest({ agentId: badAgent.id })).toMatchObject({ allResting: true, nextBackAt: rested.restingUntil!.toISOString(), resting: [{ numberId: bad.id, reason: rested.healthReason }] });
      expect(await member.agents.poolRest({ agentId: peerAgent.id })).toMatchObject({ allResting: false, resting: [], message: null });
      const elsewhere = await createTestOrganization(db);
      await expect((await dashboardCaller(db, elsewhere.organization.id, "member")).agents.poolRest({ agentId: badAgent.id })).rejects.toMatchObject({ code: "NOT_FOUND" });

      // Exactly one event, in the feed and in the webhook log (delivered, signed, the same id and bytes).
      await runner.drain();
      const api = apiClient(db, { now: clock.now });
      const feed = await api("/events", { key: apiKey, query: { limit: 500 } });
      expect(feed.status).toBe(200);
      const healthEvents = feed.body.events.filter((event: { type: string }) => event.type === "number.health_changed");
      expect(healthEvents).toHaveLength(1);
      expect(healthEvents[0].data).toMatchObject({
        type: "number.health_changed",
        numberId: bad.id,
        phoneNumber: bad.phoneNumber,
        previousHealth: "healthy",
        health: "resting",
        reason: rested.healthReason,
        restingUntil: rested.restingUntil!.toISOString(),
      });
      expect(healthEvents[0].id).toBe(healthEvents[0].data.eventId);
      expect(healthEvents[0].data.evidence.answerRate).toBeLessThan(0.1);
      const deliveries = await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.organizationId, organization.id));
      expect(deliveries).toHaveLength(1);
      expect(deliveries[0]).toMatchObject({ kind: "number.health_changed", status: "succeeded", messageId: healthEvents[0].id, callId: null });
      expect(receiver.requests).toHaveLength(1);
      const request = receiver.requests[0]!;
      expect(request.headers["webhook-id"]).toBe(healthEvents[0].id);
      // Signed per Standard Webhooks (checked by hand: the library refuses the simulated clock's timestamps as stale).
      const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
      const expected = createHmac("sha256", key).update(`${request.headers["webhook-id"]}.${request.headers["webhook-timestamp"]}.${request.body}`).digest("base64");
      expect(request.headers["webhook-signature"]!.split(" ")).toContain(`v1,${expected}`);
      expect(JSON.parse(request.body)).toEqual(healthEvents[0].data);

      // The console's and the API's view: the state with its reason, and the day's counters.
      const [view] = await findNumberHealth(db, { organizationId: organization.id, numberIds: [bad.id], days: 2, now: start });
      expect(view).toMatchObject({ numberId: bad.id, health: "resting", healthReason: rested.healthReason, inRotation: false, dailyCallCap: 100 });
      expect(view!.days.map((day) => day.day)).toEqual(["2026-03-01", "2026-03-02"]);
      expect(view!.days[0]!.placed).toBe(0);
      expect(view!.days[1]).toMatchObject({ placed: 50 + dropCalls, answered: 20 + Math.ceil(dropCalls / 20) });

      // An hour before the rest ends, the sweep leaves it; once it is over, the sweep brings it back under watch.
      clock.set(new Date(rested.restingUntil!.getTime() - 3_600_000));
      await runner.advance(10 * 60_000);
      expect((await healthOf(db, bad.id)).health).toBe("resting");
      clock.set(rested.restingUntil!);
      await runner.advance(10 * 60_000);
      const back = await healthOf(db, bad.id);
      expect(back).toMatchObject({ health: "watch", restingUntil: null });
      expect(back.healthReason).toContain("back from its rest");
      expect(await callable(clock.now())).toBe(true);
      const after = await api("/events", { key: apiKey, query: { limit: 500 } });
      const changes = after.body.events
        .filter((event: { type: string }) => event.type === "number.health_changed")
        .map((event: { data: { previousHealth: string; health: string } }) => `${event.data.previousHealth}→${event.data.health}`);
      expect(changes).toEqual(["healthy→resting", "resting→watch"]);
      await receiver.waitForRequests(2);
      expect(JSON.parse(receiver.requests[1]!.body)).toMatchObject({ health: "watch", previousHealth: "resting", evidence: null });
    } finally {
      await runner.stop();
    }
  }, 240_000);
});

describe("number health counters", () => {
  it("counts the carrier's attestation of a call and an SMS STOP on the number's day; calls from numbers the organization does not hold are counted, never judged", async () => {
    const { organization } = await createTestOrganization(db);
    const ours = await insertNumber(db, organization.id, freshNumber());
    const agent = await createTestAgent(db, organization.id, { phoneNumbers: [ours.phoneNumber] });
    const sequence = await createTestSequence(db, { organizationId: organization.id, agentId: agent.id, phoneNumber: "+12125550182" });
    const now = new Date("2026-03-02T15:00:00Z");
    const call = await createTestCall(db, { organizationId: organization.id, agentId: agent.id, sequenceId: sequence.id, scheduledAt: now });
    await claimDial(db, { callId: call.id, organizationId: organization.id, now });
    // Twilio reports StirStatus on `ringing`; a later callback without it changes nothing.
    await applyStatusCallback(db, { callId: call.id, form: { CallStatus: "ringing", StirStatus: "B" }, now });
    await applyStatusCallback(db, { callId: call.id, form: { CallStatus: "in-progress" }, now });
    await recordNumberCall(db, { organizationId: organization.id, phoneNumber: ours.phoneNumber, callId: call.id, dialedAt: now, outcome: "answered", durationSeconds: 4, optedOut: true, stratum: "US-NY|3", now });
    await receiveSms(db, { from: sequence.phoneNumber, to: ours.phoneNumber, body: "Stop", providerMessageId: `SM${randomInt(1e9)}`, optOutHandling: "app", now });

    const [view] = await findNumberHealth(db, { organizationId: organization.id, days: 1, now });
    expect(view!.days[0]).toMatchObject({ placed: 1, answered: 1, shortCalls: 1, optOuts: 1, stops: 1, attestation: { A: 0, B: 1, C: 0, none: 0 }, answerRate: 1 });
    // A number the organization does not hold (not in its numbers): counted on its day, judged by nobody.
    const stranger = freshNumber();
    await recordNumberCall(db, { organizationId: organization.id, phoneNumber: stranger, callId: "call.none", dialedAt: now, outcome: "no-answer", durationSeconds: 0, optedOut: false, stratum: "US-NY|3", now });
    const [strangerDay] = await db.select().from(numberDailyStats).where(and(eq(numberDailyStats.organizationId, organization.id), eq(numberDailyStats.phoneNumber, stranger)));
    expect(strangerDay).toMatchObject({ placed: 1, noAnswer: 1, strata: { "US-NY|3": [1, 0] } });
    expect(await evaluateNumberHealthAfterCall(db, { organizationId: organization.id, phoneNumber: stranger, stratum: "US-NY|3", outcome: "no-answer", now })).toEqual([]);
    await expect(findNumberHealth(db, { organizationId: organization.id, days: 0 })).rejects.toMatchObject({ code: "INVALID_REQUEST" });
    await expect(findNumberHealth(db, { organizationId: organization.id, days: 91 })).rejects.toMatchObject({ code: "INVALID_REQUEST" });
  });
});

describe("number health under concurrency", () => {
  it("takes each of many calls of one number ending at once exactly once, and writes its rest once", async () => {
    const { organization } = await createTestOrganization(db);
    const ours = await insertNumber(db, organization.id, freshNumber());
    const peer = freshNumber();
    const now = new Date("2026-03-02T15:00:00Z");
    // The peers' history: 200 calls, 40 % answered.
    for (let index = 0; index < 200; index += 1) {
      await recordNumberCall(db, { organizationId: organization.id, phoneNumber: peer, callId: `call.p${index}`, dialedAt: now, outcome: index % 5 < 2 ? "answered" : "voicemail", durationSeconds: 40, optedOut: false, stratum: "US-NY|3", now });
    }
    const judge = (outcome: "answered" | "voicemail") => evaluateNumberHealthAfterCall(db, { organizationId: organization.id, phoneNumber: ours.phoneNumber, stratum: "US-NY|3", outcome, now });
    const inParallel = async (count: number, outcomeOf: (index: number) => "answered" | "voicemail") => {
      let next = 0;
      const changes = await Promise.all(
        Array.from({ length: 8 }, async () => {
          const made = [];
          while (next < count) made.push(...(await judge(outcomeOf(next++))));
          return made;
        }),
      );
      return changes.flat();
    };
    // 40 calls like its peers, 8 at a time: every one on the monitor, no change.
    expect(await inParallel(40, (index) => (index % 5 < 2 ? "answered" : "voicemail"))).toEqual([]);
    const [monitor] = await db.select().from(numberHealthMonitors).where(eq(numberHealthMonitors.numberId, ours.id));
    expect(monitor).toMatchObject({ stateCalls: 40, stateAnswered: 16, version: 40 });
    // Then 100 unanswered calls, 8 at a time: one rest, written once.
    const changes = await inParallel(100, () => "voicemail");
    expect(changes.map((change) => `${change.previousHealth}→${change.health}`)).toEqual(["healthy→resting"]);
    const events = await db.select().from(callEvents).where(and(eq(callEvents.organizationId, organization.id), eq(callEvents.type, "number.health_changed")));
    expect(events).toHaveLength(1);
    expect((await healthOf(db, ours.id)).health).toBe("resting");
  });
});

describe("webhook endpoints: event types", () => {
  it("get call results only unless they ask for number health changes; none at all is refused", async () => {
    const { organization } = await createTestOrganization(db);
    const caller = await dashboardCaller(db, organization.id, "admin");
    const receiver = await startReceiver();
    // The dashboard's create refuses loopback URLs outside embedded mode: use the service for the address, the router for the rest.
    const { endpoint } = await createWebhookEndpoint(db, { organizationId: organization.id, url: receiver.url, policy: LOOPBACK_ADDRESS_POLICY });
    expect(endpoint.eventTypes).toEqual(["call.result"]);
    const updated = await caller.webhooks.updateEndpoint({ endpointId: endpoint.endpointId, eventTypes: ["number.health_changed", "call.result"] });
    expect(updated.eventTypes).toEqual(["number.health_changed", "call.result"]);
    await expect(caller.webhooks.updateEndpoint({ endpointId: endpoint.endpointId, eventTypes: [] })).rejects.toMatchObject({ code: "BAD_REQUEST" });
  });
});
