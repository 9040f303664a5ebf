import { describe, expect, it } from "vitest";
import { useTestDb } from "@/tests/helpers/db";
import { patientApiClient } from "../enrollment/helpers";
import { callStep, callsOf, createEngineOrganization, useCallEngines } from "../call-engine/harness";

// Quiet hours as every deployment has them (tests/setup/per-file.ts turns them off for the real-clock tests).
delete process.env.COMPLIANCE_QUIET_HOURS;

/** Quiet hours at dial time: contacts enrolled through the real /api/v1 handler, the real dispatcher on the runner. */
const db = useTestDb();
const start = useCallEngines(db, "quiet-hours-at-dial");
const HOUR = 3_600_000;

async function enrollThroughApi(params: {
  engine: Awaited<ReturnType<typeof start>>;
  apiKey: string;
  agentId: string;
  phoneNumber: string;
  timezone: string;
  scheduledAt: string;
  bypassCallWindows?: boolean;
}) {
  const api = patientApiClient(db, { now: params.engine.clock.now });
  const res = await api(`/agents/${params.agentId}/schedule/sequence`, {
    method: "POST",
    key: params.apiKey,
    body: {
      name: "Ada Lovelace",
      phoneNumber: params.phoneNumber,
      company_name: "Acme",
      timezone: params.timezone,
      scheduledAt: params.scheduledAt,
      ...(params.bypassCallWindows ? { bypassCallWindows: true } : {}),
    },
  });
  expect(res.status).toBe(201);
  return { api, sequenceId: res.body.sequence.sequenceId as string };
}

describe("quiet hours at dial time", () => {
  it("a call due at 7:30 local in a federal-only state (New York) is moved to 8:00 and the move is recorded", async () => {
    // Monday 2 March 2026, 6:00 in New York (EST, UTC−5).
    const engine = await start({ start: new Date("2026-03-02T11:00:00Z") });
    const { apiKey, agent } = await createEngineOrganization(db);
    const { api, sequenceId } = await enrollThroughApi({
      engine,
      apiKey,
      agentId: agent.id,
      phoneNumber: "+12125550143",
      timezone: "America/New_York",
      scheduledAt: "2026-03-02T12:30:00Z",
    });
    await engine.settle();
    await engine.advance(HOUR); // 7:00 local: not due yet
    expect((await callsOf(db, sequenceId))[0]!.dialedAt).toBeNull();
    await engine.advance(2 * HOUR);

    const [call] = await callsOf(db, sequenceId);
    expect(engine.simulator.dialCount(call!.id)).toBe(1);
    expect(call!.scheduledAt.toISOString()).toBe("2026-03-02T13:00:00.000Z");
    expect(call!.dialedAt!.toISOString()).toBe("2026-03-02T13:00:00.000Z");
    expect(call!.rescheduledAt!.toISOString()).toBe("2026-03-02T12:30:00.000Z");
    const metadata = await api(`/conversations/metadata/${sequenceId}`, { key: apiKey });
    expect(metadata.body.metadata[0]).toMatchObject({ scheduledAt: "2026-03-02T13:00:00.000Z", rescheduledAt: "2026-03-02T12:30:00.000Z" });
  });

  it("in a stricter state the call moves to that state's opening (Texas: 9:00 on weekdays, 12:00 on Sundays)", async () => {
    // Monday 2 March 2026, 5:00 in Austin (CST, UTC−6).
    const engine = await start({ start: new Date("2026-03-02T11:00:00Z") });
    const { apiKey, agent } = await createEngineOrganization(db);
    const weekday = await enrollThroughApi({ engine, apiKey, agentId: agent.id, phoneNumber: "+15125550144", timezone: "America/Chicago", scheduledAt: "2026-03-02T13:30:00Z" });
    await engine.settle();
    await engine.advance(5 * HOUR);
    const [call] = await callsOf(db, weekday.sequenceId);
    expect(engine.simulator.dialCount(call!.id)).toBe(1);
    expect(call!.dialedAt!.toISOString()).toBe("2026-03-02T15:00:00.000Z");
    expect(call!.rescheduledAt!.toISOString()).toBe("2026-03-02T13:30:00.000Z");
  });

  it("a call due after 21:00 local waits for the next morning; a Texas call due Sunday 10:00 waits for 12:00", async () => {
    // Saturday 7 March 2026, 20:00 in New York.
    const engine = await start({ start: new Date("2026-03-08T01:00:00Z") });
    const { apiKey, agent } = await createEngineOrganization(db);
    const late = await enrollThroughApi({ engine, apiKey, agentId: agent.id, phoneNumber: "+12125550145", timezone: "America/New_York", scheduledAt: "2026-03-08T02:30:00Z" });
    const sunday = await enrollThroughApi({ engine, apiKey, agentId: agent.id, phoneNumber: "+15125550146", timezone: "America/Chicago", scheduledAt: "2026-03-08T16:00:00Z" });
    await engine.settle();
    await engine.advance(20 * HOUR);
    const [lateCall] = await callsOf(db, late.sequenceId);
    // Sunday 8 March is the spring-forward day: 8:00 EDT is 12:00Z.
    expect(lateCall!.dialedAt!.toISOString()).toBe("2026-03-08T12:00:00.000Z");
    const [sundayCall] = await callsOf(db, sunday.sequenceId);
    expect(sundayCall!.dialedAt!.toISOString()).toBe("2026-03-08T17:00:00.000Z");
  });

  it("bypassCallWindows skips the agent's window but never quiet hours", async () => {
    // Monday 2 March 2026, 6:00 in New York; the agent calls 10:00–17:00 only.
    const engine = await start({ start: new Date("2026-03-02T11:00:00Z") });
    const { apiKey, agent } = await createEngineOrganization(db, { steps: [callStep({ window: { startTime: 600, endTime: 1020 } })] });
    const bypassed = await enrollThroughApi({
      engine,
      apiKey,
      agentId: agent.id,
      phoneNumber: "+12125550147",
      timezone: "America/New_York",
      scheduledAt: "2026-03-02T12:30:00Z",
      bypassCallWindows: true,
    });
    await engine.settle();
    await engine.advance(4 * HOUR);
    const [call] = await callsOf(db, bypassed.sequenceId);
    expect(engine.simulator.dialCount(call!.id)).toBe(1);
    // 8:00 local: the quiet-hours opening, not 7:30 (bypassed quiet hours) nor 10:00 (the agent's window).
    expect(call!.dialedAt!.toISOString()).toBe("2026-03-02T13:00:00.000Z");
    expect(call!.rescheduledAt).not.toBeNull();
  });

  it("COMPLIANCE_QUIET_HOURS=off (test deployments only) dials at 7:30 local, nothing moved", async () => {
    process.env.COMPLIANCE_QUIET_HOURS = "off";
    try {
      const engine = await start({ start: new Date("2026-03-02T11:00:00Z") });
      const { apiKey, agent } = await createEngineOrganization(db);
      const { sequenceId } = await enrollThroughApi({ engine, apiKey, agentId: agent.id, phoneNumber: "+12125550148", timezone: "America/New_York", scheduledAt: "2026-03-02T12:30:00Z" });
      await engine.settle();
      await engine.advance(2 * HOUR);
      const [call] = await callsOf(db, sequenceId);
      expect(call!.dialedAt!.toISOString()).toBe("2026-03-02T12:30:00.000Z");
      expect(call!.rescheduledAt).toBeNull();
    } finally {
      delete process.env.COMPLIANCE_QUIET_HOURS;
    }
  });
});
