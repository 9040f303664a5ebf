import { describe, expect, it } from "vitest";
import { createTestAgent } from "@/tests/factories";
import { useTestDb } from "@/tests/helpers/db";
import { patientApiClient } from "../enrollment/helpers";
import { AGENT_DEFINITIONS, callStep, callsOf, createEngineOrganization, useCallEngines } from "../call-engine/harness";

// Quiet hours as every deployment has them (tests/setup/per-file.ts turns them off for the real-clock tests).
delete process.env.COMPLIANCE_QUIET_HOURS;

/** State attempt caps at dial time: enrolled through the real /api/v1 handler, dialed by the real dispatcher. */
const db = useTestDb();
const start = useCallEngines(db, "attempt-caps-at-dial");
const HOUR = 3_600_000;

describe("attempt caps per number at dial time", () => {
  it("a Florida number gets at most 3 calls in 24 hours across the organization's agents; the 4th is deferred, not dropped", async () => {
    // Monday 2 March 2026, 8:00 in Miami (EST, UTC−5). Numbers ending in 3 are busy: each call ends at once.
    const engine = await start({ start: new Date("2026-03-02T13:00:00Z") });
    const { organization, apiKey, agent } = await createEngineOrganization(db, { steps: [callStep()] });
    const second = await createTestAgent(db, organization.id, { name: "Bo", phoneNumbers: ["+13055550190"], steps: [callStep()], ...AGENT_DEFINITIONS });
    const other = await createEngineOrganization(db, { steps: [callStep()] });
    const api = patientApiClient(db, { now: engine.clock.now });
    const enrollAt = async (key: string, agentId: string, scheduledAt: string) => {
      const res = await api(`/agents/${agentId}/schedule/sequence`, {
        method: "POST",
        key,
        body: { name: "Flo Rida", phoneNumber: "(305) 555-0123", company_name: "Acme", timezone: "America/New_York", scheduledAt },
      });
      expect(res.status).toBe(201);
      return res.body.sequence.sequenceId as string;
    };
    const first = await enrollAt(apiKey, agent.id, "2026-03-02T14:00:00Z"); // 9:00
    const secondCall = await enrollAt(apiKey, second.id, "2026-03-02T14:30:00Z");
    const third = await enrollAt(apiKey, agent.id, "2026-03-02T15:00:00Z");
    const fourth = await enrollAt(apiKey, second.id, "2026-03-02T15:30:00Z");
    // Another organization's calls to the same person are its own: not counted against this one.
    const otherOrganization = await enrollAt(other.apiKey, other.agent.id, "2026-03-02T15:45:00Z");
    await engine.settle();
    await engine.advance(4 * HOUR);

    for (const sequenceId of [first, secondCall, third, otherOrganization]) {
      const [call] = await callsOf(db, sequenceId);
      expect(engine.simulator.dialCount(call!.id)).toBe(1);
    }
    const [capped] = await callsOf(db, fourth);
    expect(capped!.resultType).toBe("Scheduled");
    expect(engine.simulator.dialCount(capped!.id)).toBe(0);
    // The first attempt leaves the 24-hour period at 9:00 the next day.
    expect(capped!.scheduledAt.toISOString()).toBe("2026-03-03T14:00:00.000Z");
    expect(capped!.rescheduledAt!.toISOString()).toBe("2026-03-02T15:30:00.000Z");

    await engine.advance(21 * HOUR);
    const [dialed] = await callsOf(db, fourth);
    expect(engine.simulator.dialCount(dialed!.id)).toBe(1);
    expect(dialed!.dialedAt!.toISOString()).toBe("2026-03-03T14:00:00.000Z");
  });

  it("a number in a state without a cap (New York) is dialed every time", async () => {
    const engine = await start({ start: new Date("2026-03-02T13:00:00Z") });
    const { apiKey, agent } = await createEngineOrganization(db, { steps: [callStep()] });
    const api = patientApiClient(db, { now: engine.clock.now });
    const ids: string[] = [];
    for (const minutes of [0, 20, 40, 60]) {
      const res = await api(`/agents/${agent.id}/schedule/sequence`, {
        method: "POST",
        key: apiKey,
        body: { name: "Ny Ork", phoneNumber: "+12125550133", company_name: "Acme", timezone: "America/New_York", scheduledAt: new Date(Date.UTC(2026, 2, 2, 14, minutes)).toISOString() },
      });
      ids.push(res.body.sequence.sequenceId);
    }
    await engine.settle();
    await engine.advance(3 * HOUR);
    for (const sequenceId of ids) {
      const [call] = await callsOf(db, sequenceId);
      expect(engine.simulator.dialCount(call!.id)).toBe(1);
    }
  });
});
