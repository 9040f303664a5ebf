import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { findAutoPauseWindows } from "@/db/queries/dial-limits";
import { agents, calls } from "@/db/schema";
import { autoPauseCheck } from "@/server/services/call-engine/compliance-checks";
import type { DialCandidate } from "@/server/services/call-engine/dial-gate";
import { createTestAgent, createTestCall, createTestOrganization, createTestSequence } from "../../factories";
import { useTestDb } from "../../helpers/db";

/**
 * Auto-pause's window in a burst: failed and invalid numbers end within seconds, answered calls talk for minutes, so
 * the first calls to finish are the failures. The window follows dial order and stops at the first call whose outcome
 * is not known yet (db/queries/dial-limits.ts).
 */
const db = useTestDb();
const T0 = new Date("2026-03-02T15:00:00Z").getTime();

async function burstAgent(windowCalls: number) {
  const { organization } = await createTestOrganization(db);
  const agent = await createTestAgent(db, organization.id, { name: "Burst" });
  await db.update(agents).set({ autoPauseWindowCalls: windowCalls, autoPauseFailurePercent: 30 }).where(eq(agents.id, agent.id));
  const sequence = await createTestSequence(db, { organizationId: organization.id, agentId: agent.id });
  let step = 0;
  /** A call dialed `second` s after T0, with its result now. */
  const dialed = async (second: number, resultType: string) =>
    createTestCall(db, {
      organizationId: organization.id,
      agentId: agent.id,
      sequenceId: sequence.id,
      stepNumber: ++step,
      scheduledAt: new Date(T0),
      dialedAt: new Date(T0 + second * 1000),
      resultType: resultType as never,
    });
  return { organization, agent, dialed };
}

describe("auto-pause window in dial order", () => {
  it("failures dialed after a call still in progress do not count until it ends", async () => {
    const { agent, dialed } = await burstAgent(5);
    await dialed(0, "Goal Completed");
    const talking = await dialed(1, "Calling");
    // Dialed after the answered call, finished before it: five fast failures.
    for (let second = 2; second < 7; second++) await dialed(second, "Failed");

    expect((await findAutoPauseWindows(db, { agentIds: [agent.id] })).get(agent.id)).toEqual(["Goal Completed"]);

    // Ended but not analysed yet: its outcome is still unknown.
    await db.update(calls).set({ resultType: "Processing Analysis" }).where(eq(calls.id, talking.id));
    expect((await findAutoPauseWindows(db, { agentIds: [agent.id] })).get(agent.id)).toEqual(["Goal Completed"]);
    // Its outcome known, the window is the last five calls in dial order, newest first.
    await db.update(calls).set({ resultType: "Goal Not Completed" }).where(eq(calls.id, talking.id));
    expect((await findAutoPauseWindows(db, { agentIds: [agent.id] })).get(agent.id)).toEqual(["Failed", "Failed", "Failed", "Failed", "Failed"]);
  });

  it("a burst with one bad number in five is not paused by its fast failures; a burst of bad numbers is", async () => {
    const statusAfterCheck = async (agentId: string, nextCall: typeof calls.$inferSelect) => {
      await db.transaction(async (tx) => {
        const [agent] = await tx.select().from(agents).where(eq(agents.id, agentId));
        const candidate = { agent: agent!, call: nextCall } as unknown as DialCandidate;
        await autoPauseCheck.run({ tx, now: new Date(T0 + 60_000), paced: true, engine: "simulator", slots: new Map() }, [candidate]);
      });
      return (await db.select().from(agents).where(eq(agents.id, agentId)))[0]!.status;
    };

    // Thirty calls dialed one a second; every fifth failed within seconds, the others are still talking. Counted by
    // finishing order, the window of 5 would hold five failures (100 %) and pause the agent.
    const mixed = await burstAgent(5);
    for (let second = 0; second < 30; second++) await mixed.dialed(second, second % 5 === 4 ? "Failed" : "Calling");
    expect(await statusAfterCheck(mixed.agent.id, await mixed.dialed(30, "Calling"))).toBe("ACTIVE");
    // Once they end (one in five failed: 20 %, under 30 %), still active.
    await db.update(calls).set({ resultType: "Goal Not Completed" }).where(and(eq(calls.agentId, mixed.agent.id), eq(calls.resultType, "Calling")));
    expect(await statusAfterCheck(mixed.agent.id, await mixed.dialed(31, "Calling"))).toBe("ACTIVE");

    // A list of bad numbers: the failures come first in dial order too, and the agent is paused.
    const bad = await burstAgent(5);
    for (let second = 0; second < 6; second++) await bad.dialed(second, "Invalid Phone Number");
    await bad.dialed(6, "Calling");
    expect(await statusAfterCheck(bad.agent.id, await bad.dialed(7, "Calling"))).toBe("PAUSED");
  });
});
