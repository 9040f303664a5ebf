import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { agents } from "@/db/schema";
import { createTestAgent } from "@/tests/factories";
import { useTestDb } from "@/tests/helpers/db";
import { patientApiClient } from "../enrollment/helpers";
import { AGENT_DEFINITIONS, callStep, callsOf, createEngineOrganization, ledgerOf, useCallEngines } from "../call-engine/harness";

// Quiet hours as every deployment has them (tests/setup/per-file.ts turns them off for the real-clock tests).
delete process.env.COMPLIANCE_QUIET_HOURS;

/** The daily credit cap and auto-pause at dial time: enrolled through /api/v1, the real dispatcher. */
const db = useTestDb();
const start = useCallEngines(db, "caps-and-auto-pause");
const HOUR = 3_600_000;

async function enrollThroughApi(params: { now: () => Date; apiKey: string; agentId: string; phoneNumber: string; scheduledAt?: string }) {
  const api = patientApiClient(db, { now: params.now });
  const res = await api(`/agents/${params.agentId}/schedule/sequence`, {
    method: "POST",
    key: params.apiKey,
    body: {
      name: "Ada Lovelace",
      phoneNumber: params.phoneNumber,
      company_name: "Acme",
      timezone: "America/New_York",
      ...(params.scheduledAt ? { scheduledAt: params.scheduledAt } : {}),
    },
  });
  expect(res.status).toBe(201);
  return res.body.sequence.sequenceId as string;
}

describe("the daily credit cap at dial time", () => {
  it("an agent's daily credit cap stops its dialing until the next day in its first timezone", async () => {
    // Monday 2 March 2026, 10:00 in New York. A number ending in 1 is answered: a charged call of at least 1 credit.
    const engine = await start({ start: new Date("2026-03-02T15:00:00Z") });
    const { organization, apiKey, agent } = await createEngineOrganization(db, { steps: [callStep()], timezones: ["America/New_York"] });
    await db.update(agents).set({ dailyCreditCap: 1 }).where(eq(agents.id, agent.id));
    const first = await enrollThroughApi({ now: engine.clock.now, apiKey, agentId: agent.id, phoneNumber: "+12025550631" });
    const second = await enrollThroughApi({ now: engine.clock.now, apiKey, agentId: agent.id, phoneNumber: "+12025550641", scheduledAt: "2026-03-02T15:30:00Z" });
    await engine.settle();
    await engine.advance(HOUR);

    const [firstCall] = await callsOf(db, first);
    expect(engine.simulator.dialCount(firstCall!.id)).toBe(1);
    const charged = (await ledgerOf(db, organization.id)).filter((row) => row.agentId === agent.id);
    expect(charged.reduce((sum, row) => sum + row.credits, 0)).toBeGreaterThanOrEqual(1);
    const [waiting] = await callsOf(db, second);
    expect(engine.simulator.dialCount(waiting!.id)).toBe(0);
    // Midnight in New York (EST, UTC−5).
    expect(waiting!.scheduledAt.toISOString()).toBe("2026-03-03T05:00:00.000Z");
    expect(waiting!.rescheduledAt!.toISOString()).toBe("2026-03-02T15:30:00.000Z");

    await engine.advance(24 * HOUR);
    const [dialed] = await callsOf(db, second);
    expect(engine.simulator.dialCount(dialed!.id)).toBe(1);
    // Midnight is inside quiet hours: the call then waits for 8:00 local.
    expect(dialed!.dialedAt!.toISOString()).toBe("2026-03-03T13:00:00.000Z");
  }, 120_000);
});

describe("auto-pause at dial time", () => {
  it("an agent whose last N calls fail over X % is PAUSED with a reason (GET /agents shows it); an agent under the threshold is not", async () => {
    const engine = await start({ start: new Date("2026-03-02T15:00:00Z") });
    const { organization, apiKey, agent } = await createEngineOrganization(db, { steps: [callStep()] });
    const healthy = await createTestAgent(db, organization.id, { name: "Healthy", phoneNumbers: ["+12025550198"], steps: [callStep()], ...AGENT_DEFINITIONS });
    await db.update(agents).set({ autoPauseWindowCalls: 5, autoPauseFailurePercent: 30 }).where(eq(agents.organizationId, organization.id));

    // The simulator's failure digits: 6 → Invalid Phone Number, 7 → Failed (provider error). 2 of 5 = 40 % > 30 %.
    for (const [index, digit] of [6, 7, 1, 2, 3].entries()) {
      await enrollThroughApi({ now: engine.clock.now, apiKey, agentId: agent.id, phoneNumber: `+120255507${index}${digit}` });
    }
    // 1 of 5 = 20 %: under the threshold.
    for (const [index, digit] of [7, 1, 2, 3, 4].entries()) {
      await enrollThroughApi({ now: engine.clock.now, apiKey, agentId: healthy.id, phoneNumber: `+120255508${index}${digit}` });
    }
    const laterOfFailing = await enrollThroughApi({ now: engine.clock.now, apiKey, agentId: agent.id, phoneNumber: "+12025550791", scheduledAt: "2026-03-02T15:30:00Z" });
    const laterOfHealthy = await enrollThroughApi({ now: engine.clock.now, apiKey, agentId: healthy.id, phoneNumber: "+12025550891", scheduledAt: "2026-03-02T15:30:00Z" });
    await engine.settle();
    await engine.advance(40 * 60_000);

    const [held] = await callsOf(db, laterOfFailing);
    expect(held!.resultType).toBe("Scheduled");
    expect(engine.simulator.dialCount(held!.id)).toBe(0);
    const [dialed] = await callsOf(db, laterOfHealthy);
    expect(engine.simulator.dialCount(dialed!.id)).toBe(1);

    const [row] = await db.select().from(agents).where(eq(agents.id, agent.id));
    expect(row).toMatchObject({ status: "PAUSED", pauseSource: "auto-pause" });
    expect(row!.pausedAt!.getTime()).toBeGreaterThanOrEqual(new Date("2026-03-02T15:30:00Z").getTime());
    const listed = await patientApiClient(db)("/agents", { key: apiKey, query: { orgId: organization.orgId } });
    const byId = new Map((listed.body.agents as Array<{ agentId: string; status: string; pauseReason: string | null }>).map((item) => [item.agentId, item]));
    expect(byId.get(agent.id)).toMatchObject({ status: "PAUSED", pauseReason: expect.stringContaining("2 of the last 5 calls (40 %)") });
    expect(byId.get(healthy.id)).toMatchObject({ status: "ACTIVE", pauseReason: null });
  }, 240_000);
});
