import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { agents, calls, organizations } from "@/db/schema";
import { useTestDb } from "@/tests/helpers/db";
import { patientApiClient } from "../enrollment/helpers";
import { callsOf, createEngineOrganization, useCallEngines, type CallEngineHarness } from "../call-engine/harness";

/** Maximum concurrent calls at dial time: a burst enrolled through /api/v1, the real dispatcher, the simulator. */
const db = useTestDb();
const start = useCallEngines(db, "concurrency-caps-at-dial");

async function enrollBurst(engine: CallEngineHarness, apiKey: string, agentId: string, count: number, prefix: string): Promise<string[]> {
  const api = patientApiClient(db, { now: engine.clock.now });
  const ids: string[] = [];
  for (let index = 0; index < count; index += 1) {
    // Numbers ending in 1 are answered: each call stays in the air until the simulator runs it.
    const res = await api(`/agents/${agentId}/schedule/sequence`, {
      method: "POST",
      key: apiKey,
      body: { name: `Contact ${index}`, phoneNumber: `+1202555${prefix}${index}1`, company_name: "Acme", timezone: "America/New_York" },
    });
    expect(res.status).toBe(201);
    ids.push(res.body.sequence.sequenceId as string);
  }
  return ids;
}

async function inFlight(organizationId: string, agentId?: string): Promise<number> {
  const rows = await db
    .select({ id: calls.id })
    .from(calls)
    .where(and(eq(calls.organizationId, organizationId), eq(calls.resultType, "Calling"), agentId ? eq(calls.agentId, agentId) : undefined));
  return rows.length;
}

/**
 * Runs the burst to the end one dispatcher round at a time: after each round the calls in the air are counted (the
 * simulator holds every placed call until it is run), then they are answered and the clock moves one second.
 */
async function runCounting(engine: CallEngineHarness, count: () => Promise<number>): Promise<number[]> {
  const counts: number[] = [];
  for (let round = 0; round < 60; round += 1) {
    await engine.runner.drain();
    counts.push(await count());
    if (engine.simulator.pendingCallIds().length > 0) await engine.simulator.runPending();
    await engine.runner.drain();
    engine.clock.set(new Date(engine.clock.now().getTime() + 1000));
  }
  await engine.settle();
  return counts;
}

describe("maximum concurrent calls at dial time", () => {
  it("an organization's cap holds under a burst: never more calls in the air, and every call is dialed once", async () => {
    // Monday 2 March 2026, 10:00 in New York.
    const engine = await start({ start: new Date("2026-03-02T15:00:00Z") });
    const { organization, apiKey, agent } = await createEngineOrganization(db);
    await db.update(organizations).set({ maxConcurrentCalls: 3 }).where(eq(organizations.id, organization.id));
    const sequenceIds = await enrollBurst(engine, apiKey, agent.id, 8, "07");

    const counts = await runCounting(engine, () => inFlight(organization.id));
    expect(Math.max(...counts)).toBe(3);
    for (const sequenceId of sequenceIds) {
      const [call] = await callsOf(db, sequenceId);
      expect(engine.simulator.dialCount(call!.id)).toBe(1);
      expect(call!.resultType).not.toMatch(/^(Scheduled|Calling)$/);
    }
  }, 120_000);

  it("an agent's cap holds under a burst of its own calls", async () => {
    const engine = await start({ start: new Date("2026-03-02T15:00:00Z") });
    const { organization, apiKey, agent } = await createEngineOrganization(db);
    await db.update(agents).set({ maxConcurrentCalls: 2 }).where(eq(agents.id, agent.id));
    const sequenceIds = await enrollBurst(engine, apiKey, agent.id, 6, "08");

    const counts = await runCounting(engine, () => inFlight(organization.id, agent.id));
    expect(Math.max(...counts)).toBe(2);
    for (const sequenceId of sequenceIds) {
      const [call] = await callsOf(db, sequenceId);
      expect(engine.simulator.dialCount(call!.id)).toBe(1);
    }
  }, 120_000);
});
