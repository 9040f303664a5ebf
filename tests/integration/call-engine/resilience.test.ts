import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { POST as voiceEventsRoute } from "@/app/api/voice/events/route";
import { calls } from "@/db/schema";
import { inngest } from "@/inngest/client";
import { callEnded } from "@/inngest/events";
import { ruleBasedAnalyzer } from "@/server/analysis/rule-based";
import type { CallAnalyzer } from "@/server/analysis/types";
import { chargeCall } from "@/server/services/call-engine/charging";
import { signVoiceEvent } from "@/server/voice/signature";
import { createSimulatedVoiceEngine } from "@/server/voice/simulator/simulator";
import { createFetchTransport } from "@/server/voice/transport";
import type { VoiceEngine } from "@/server/voice/types";
import { createTestClock } from "@/tests/helpers/inngest";
import { useTestDb } from "@/tests/helpers/db";
import { callsOf, createEngineOrganization, enroll, ledgerOf, sequenceOf, useCallEngines } from "./harness";

const db = useTestDb();
const start = useCallEngines(db, "resilience");

const MINUTE = 60_000;
const START = new Date("2026-03-02T15:00:00Z");

async function postEvent(body: unknown, headers?: Record<string, string>) {
  const text = JSON.stringify(body);
  const response = await voiceEventsRoute(
    new Request("http://localhost/api/voice/events", { method: "POST", headers: { "content-type": "application/json", ...(headers ?? signVoiceEvent(text)) }, body: text }),
  );
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe("call engine: watchdog, crashes and retries", () => {
  it("watchdog: a call its provider has no record of (lost) ends as Failed, and the sequence moves on", async () => {
    const engine = await start({ start: START, watchdog: true });
    const { organization, agent } = await createEngineOrganization(db);
    engine.watchdogScope.push(organization.id);
    const created = await enroll(db, { agent, phoneNumber: "+12025550401", now: START });
    await engine.runner.drain();
    const [calling] = await callsOf(db, created.sequenceId);
    expect(calling!.resultType).toBe("Calling");
    engine.simulator.loseCall(calling!.id);
    await engine.runner.advance(MINUTE); // not yet past the timeout
    expect((await callsOf(db, created.sequenceId))[0]!.resultType).toBe("Calling");
    await engine.runner.advance(3 * MINUTE); // silent past the timeout; asked, the provider knows no such call
    const [failed, next] = await callsOf(db, created.sequenceId);
    expect(failed!.resultType).toBe("Failed");
    expect(failed!.summary).toContain("has no record of the call");
    expect(failed!.analyzedAt).not.toBeNull();
    expect(next!.resultType).toBe("Scheduled");
    expect((await sequenceOf(db, created.sequenceId)).lifecycleStatus).toBe("in progress");
    expect(engine.analyzed.map((event) => event.callId)).toEqual([failed!.id]);
    expect(await ledgerOf(db, organization.id)).toEqual([]);
    // A late end report changes nothing.
    const late = await postEvent({ type: "call.ended", callId: failed!.id, providerCallId: failed!.providerCallId, occurredAt: engine.clock.now().toISOString(), disposition: "answered", durationSeconds: 30, transcript: "Agent: Hello.", recording: null });
    expect(late.body).toMatchObject({ status: "ignored" });
    await engine.runner.drain();
    expect((await callsOf(db, created.sequenceId))[0]!.resultType).toBe("Failed");
    expect(engine.analyzed).toHaveLength(1);
  });

  it("watchdog: a call its provider says is in the air is never failed, however late its events; they end it with its real result, once, without a second dial", async () => {
    const engine = await start({ start: START, watchdog: true });
    const { organization, agent } = await createEngineOrganization(db);
    engine.watchdogScope.push(organization.id);
    const created = await enroll(db, { agent, phoneNumber: "+12025550431", now: START });
    await engine.runner.drain();
    const [calling] = await callsOf(db, created.sequenceId);
    expect(calling!.resultType).toBe("Calling");
    // Its events are held up (a queue under load) for five timeouts; the watchdog asks each time and waits.
    await engine.runner.advance(12 * MINUTE);
    const [waiting, ...others] = await callsOf(db, created.sequenceId);
    expect(waiting!.resultType).toBe("Calling");
    expect(others).toEqual([]);
    expect(engine.analyzed).toEqual([]);
    // The provider's answer counts as a sign of life: it is asked again one timeout later, not every minute.
    expect(waiting!.providerEventAt!.getTime()).toBeGreaterThan(START.getTime() + 8 * MINUTE);
    await engine.simulator.runPending();
    await engine.runner.advance(MINUTE);
    const [ended, next] = await callsOf(db, created.sequenceId);
    expect(ended!.resultType).toBe("Goal Not Completed");
    expect(ended!.transcript).not.toBeNull();
    expect(engine.simulator.dialCount(ended!.id)).toBe(1);
    expect(engine.analyzed.map((event) => event.callId)).toEqual([ended!.id]);
    expect(next!.resultType).toBe("Scheduled");
  });

  it("watchdog: a call its provider ended whose report never arrives is ended from the provider's record, after the late-events grace", async () => {
    const engine = await start({ start: START, watchdog: true });
    const { organization, agent } = await createEngineOrganization(db);
    engine.watchdogScope.push(organization.id);
    // The provider ended the call a minute after the dial (a voicemail of 40 s); its end report is lost on the way.
    const endedAt = new Date(START.getTime() + MINUTE).toISOString();
    engine.deps.voiceEngine = () => ({
      ...engine.simulator,
      callState: async (call) => ((await engine.simulator.callState(call)).state === "unknown" ? { state: "unknown" } : { state: "ended", endedAt, disposition: "voicemail", durationSeconds: 40 }),
    });
    const created = await enroll(db, { agent, phoneNumber: "+12025550441", now: START });
    await engine.runner.drain();
    await engine.runner.advance(5 * MINUTE); // 4 minutes after the provider's end: its report may still come
    expect((await callsOf(db, created.sequenceId))[0]!.resultType).toBe("Calling");
    await engine.runner.advance(3 * MINUTE);
    const [ended] = await callsOf(db, created.sequenceId);
    expect(ended!.resultType).toBe("Voicemail");
    expect(ended!.disposition).toBe("voicemail");
    expect(ended!.duration).toBe(40);
    expect(ended!.endedAt).toEqual(new Date(endedAt));
    expect(ended!.providerError).toContain("ended from the provider's record");
    expect(engine.analyzed.map((event) => event.callId)).toEqual([ended!.id]);
    expect(engine.simulator.dialCount(ended!.id)).toBe(1);
    // The report arriving after all changes nothing.
    await engine.simulator.runPending();
    await engine.runner.drain();
    expect((await callsOf(db, created.sequenceId))[0]!.resultType).toBe("Voicemail");
    expect(engine.analyzed).toHaveLength(1);
  });

  it("watchdog: a backlog of ended calls whose analysis has not started is never failed; their analysis is requested again", async () => {
    const engine = await start({ start: START, watchdog: true, withoutAnalysis: true });
    const { organization, agent } = await createEngineOrganization(db);
    engine.watchdogScope.push(organization.id);
    const created = await enroll(db, { agent, phoneNumber: "+12025550411", now: START });
    await engine.settle();
    const [ended] = await callsOf(db, created.sequenceId);
    expect(ended!.resultType).toBe("Processing Analysis");
    // Far past the analysis timeout (10 minutes), with no analysis ever claimed: late, not lost.
    await engine.runner.advance(45 * MINUTE);
    const [waiting] = await callsOf(db, created.sequenceId);
    expect(waiting!.resultType).toBe("Processing Analysis");
    expect(waiting!.analysisStartedAt).toBeNull();
    expect(engine.analyzed).toEqual([]);
    // The watchdog asked for the analysis again (once per timeout period), with the event the voice entry point sends.
    const requests = await db.execute<{ id: string }>(
      sql`select id from inngest_events where name = 'call/ended' and payload->'data'->>'callId' = ${ended!.id} and external_id like 'call-ended:%:watchdog-%'`,
    );
    expect(requests.length).toBeGreaterThanOrEqual(2);
    expect(requests.length).toBeLessThanOrEqual(5);
  });

  it("watchdog: an analysis that started and never finished is lost: the call ends as Failed", async () => {
    const engine = await start({ start: START, watchdog: true, withoutAnalysis: true });
    const { organization, agent } = await createEngineOrganization(db);
    engine.watchdogScope.push(organization.id);
    const created = await enroll(db, { agent, phoneNumber: "+12025550471", now: START });
    await engine.settle();
    // An analysis run claimed the call and died (its process was killed for good).
    await db.update(calls).set({ analysisStartedAt: engine.clock.now() }).where(eq(calls.sequenceId, created.sequenceId));
    await engine.runner.advance(5 * MINUTE);
    expect((await callsOf(db, created.sequenceId))[0]!.resultType).toBe("Processing Analysis");
    await engine.runner.advance(7 * MINUTE);
    const [failed] = await callsOf(db, created.sequenceId);
    expect(failed!.resultType).toBe("Failed");
    expect(failed!.transcript).not.toBeNull();
    expect(engine.analyzed.map((event) => event.callId)).toEqual([failed!.id]);
  });

  it("a due call that no event announced is dialed by the dispatcher's minute sweep, once", async () => {
    const engine = await start({ start: new Date(START.getTime() + 20_000), sweepPeriodMinutes: 1 });
    const { agent } = await createEngineOrganization(db);
    const created = await enroll(db, { agent, phoneNumber: "+12025550421", now: engine.clock.now(), withoutRunner: true });
    await engine.settle();
    expect((await callsOf(db, created.sequenceId))[0]!.resultType).toBe("Scheduled");
    await engine.advance(3 * MINUTE);
    const [call, next] = await callsOf(db, created.sequenceId);
    expect(call!.resultType).toBe("Goal Not Completed");
    // Dialed by the sweep of the next minute.
    expect(call!.dialedAt).toEqual(new Date(START.getTime() + MINUTE));
    expect(engine.simulator.dialCount(call!.id)).toBe(1);
    expect(next!.resultType).toBe("Scheduled");
  });

  it("a crash between dial and analysis recovers without a second dial or a second charge", async () => {
    const clock = createTestClock(START);
    const simulator = createSimulatedVoiceEngine({
      pace: "manual",
      now: clock.now,
      transport: createFetchTransport({ url: "http://localhost/api/voice/events", fetch: (request) => voiceEventsRoute(request) }),
    });
    // The provider accepts the first dial but the connection drops before its answer arrives: the dial step fails
    // after the call was placed and is retried.
    let dropped = false;
    const flaky: VoiceEngine = {
      kind: "flaky",
      maxCallWallSeconds: simulator.maxCallWallSeconds,
      callState: (call) => simulator.callState(call),
      async placeCall(request) {
        const placed = await simulator.placeCall(request);
        if (!dropped) {
          dropped = true;
          throw new Error("connection reset after the provider accepted the call");
        }
        return placed;
      },
    };
    // The analysis crashes once too.
    let analyses = 0;
    const crashingOnce: CallAnalyzer = {
      kind: "crashing-once",
      async analyze(input) {
        analyses += 1;
        if (analyses === 1) throw new Error("process died mid-analysis");
        return ruleBasedAnalyzer.analyze(input);
      },
    };
    const first = await start({ clock, simulator, analyzer: crashingOnce });
    first.deps.voiceEngine = () => flaky;
    const { organization, agent } = await createEngineOrganization(db);
    const created = await enroll(db, { agent, phoneNumber: "+12025550431", now: START });
    await first.runner.advance(MINUTE); // dial, fail, retry → placed with the same idempotency key
    const [call] = await callsOf(db, created.sequenceId);
    expect(call!.resultType).toBe("Calling");
    expect(simulator.dialCount(call!.id)).toBe(1);
    expect(call!.providerCallId).toMatch(/^sim-/);

    // The process goes down while the call is in the air; a new runner takes over the same runs.
    await first.stop();
    const second = await start({ clock, simulator, analyzer: crashingOnce, partition: first.runner.partition });
    await second.simulator.runPending(); // the provider reports the end to the new process
    await second.runner.advance(5 * MINUTE); // analysis fails once, is retried, finalizes
    const [done, next] = await callsOf(db, created.sequenceId);
    expect(done!.resultType).toBe("Goal Not Completed");
    expect(next!.resultType).toBe("Scheduled");
    expect(analyses).toBe(2);

    // The provider retries its end report; the call/ended event is sent again: nothing is charged or announced twice.
    await inngest.send(callEnded.create({ callId: done!.id }));
    await second.runner.drain();
    // Even a charge repeated by hand writes nothing: the ledger is unique per call.
    await chargeCall(db, { organizationId: organization.id, agentId: agent.id, callId: done!.id, resultType: "Goal Not Completed", durationSeconds: done!.duration, chargedAt: START });
    const ledger = await ledgerOf(db, organization.id);
    expect(ledger.map((row) => row.callId)).toEqual([done!.id]);
    expect(ledger[0]!.credits).toBe(Math.ceil(done!.duration / 60));
    expect(second.analyzed.filter((event) => event.callId === done!.id)).toHaveLength(1);
    expect(simulator.dialCount(done!.id)).toBe(1);
  });

  it("a provider that keeps refusing a call: retried, then the call ends as Failed and the sequence moves on", async () => {
    const engine = await start({ start: START });
    let attempts = 0;
    engine.deps.voiceEngine = () => ({
      kind: "down",
      maxCallWallSeconds: 30,
      callState: async () => ({ state: "unknown" }),
      async placeCall() {
        attempts += 1;
        throw new Error("503 from the telephony provider");
      },
    });
    const { organization, agent } = await createEngineOrganization(db);
    const created = await enroll(db, { agent, phoneNumber: "+12025550451", now: START });
    await engine.runner.advance(30 * MINUTE);
    const [failed, next] = await callsOf(db, created.sequenceId);
    expect(attempts).toBe(4);
    expect(failed!.resultType).toBe("Failed");
    expect(failed!.summary).toContain("503 from the telephony provider");
    expect(next!.resultType).toBe("Scheduled");
    expect((await sequenceOf(db, created.sequenceId)).lifecycleStatus).toBe("in progress");
    expect(engine.analyzed.map((event) => event.callId)).toEqual([failed!.id]);
    expect(await ledgerOf(db, organization.id)).toEqual([]);
  });

  it("the provider-event entry point accepts only signed events about calls we placed", async () => {
    const engine = await start({ start: START });
    const { agent } = await createEngineOrganization(db);
    const created = await enroll(db, { agent, phoneNumber: "+12025550441", now: START });
    await engine.runner.drain();
    const [call] = await callsOf(db, created.sequenceId);
    const event = {
      type: "call.ended",
      callId: call!.id,
      providerCallId: call!.providerCallId,
      occurredAt: START.toISOString(),
      disposition: "answered",
      durationSeconds: 60,
      transcript: "Agent: Hi\nCustomer: Remove me from your list.",
      recording: null,
    };
    const text = JSON.stringify(event);
    expect((await postEvent(event, {})).status).toBe(401);
    expect((await postEvent(event, { ...signVoiceEvent(text, { secret: Buffer.from("not-the-secret-0123456789") }) })).status).toBe(401);
    expect((await postEvent(event, signVoiceEvent(text, { now: new Date(Date.now() - 10 * MINUTE) }))).status).toBe(401);
    expect((await postEvent({ ...event, durationSeconds: 1 }, signVoiceEvent(text))).status).toBe(401);
    // Over 25 MB, even signed: 413 with the error table's code, nothing read past the cap.
    expect(await postEvent({ ...event, transcript: "x".repeat(25 * 1024 * 1024) })).toMatchObject({ status: 413, body: { error: "PAYLOAD_TOO_LARGE" } });
    expect(await postEvent({ ...event, callId: "call.unknown" })).toMatchObject({ status: 404, body: { error: "CALL_NOT_FOUND" } });
    expect(await postEvent({ ...event, providerCallId: "sim-someone-else" })).toMatchObject({ status: 404 });
    expect(await postEvent({ ...event, disposition: "exploded" })).toMatchObject({ status: 400, body: { error: "INVALID_REQUEST" } });
    expect((await callsOf(db, created.sequenceId))[0]!.resultType).toBe("Calling");
    expect(await postEvent(event)).toMatchObject({ status: 200, body: { ok: true, status: "accepted" } });
    expect(await postEvent(event)).toMatchObject({ status: 200, body: { ok: true, status: "ignored" } });
    await engine.runner.drain();
    expect((await callsOf(db, created.sequenceId))[0]!.resultType).toBe("Opted Out");
    expect(engine.analyzed).toHaveLength(1);
  });
});
