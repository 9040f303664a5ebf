import { describe, expect, it } from "vitest";
import { apiClient } from "@/tests/helpers/api";
import { useTestDb } from "@/tests/helpers/db";
import { callsOf, createEngineOrganization, enroll, sequenceOf, useCallEngines } from "../call-engine/harness";

const db = useTestDb();
const start = useCallEngines(db, "suppression-at-dial");

describe("the suppression list at dial time", () => {
  it("a number suppressed through POST /suppressions after its call was scheduled is not dialed", async () => {
    const engine = await start({ start: new Date("2026-03-02T15:00:00Z") });
    const { apiKey, agent } = await createEngineOrganization(db);
    const scheduled = await enroll(db, { agent, phoneNumber: "+12025550377", scheduledAt: new Date("2026-03-02T16:00:00Z"), now: engine.clock.now() });
    const untouched = await enroll(db, { agent, phoneNumber: "+12025550378", scheduledAt: new Date("2026-03-02T16:00:00Z"), now: engine.clock.now() });
    await engine.settle();

    const added = await apiClient(db)("/suppressions", { method: "POST", key: apiKey, body: { phoneNumbers: ["(202) 555-0377"], reason: "asked by email" } });
    expect(added.body).toEqual({ added: 1, alreadySuppressed: 0, rejected: [] });
    await engine.advance(2 * 3_600_000);

    const [skipped] = await callsOf(db, scheduled.sequenceId);
    expect(skipped!.resultType).toBe("Cancelled");
    expect(engine.simulator.dialCount(skipped!.id)).toBe(0);
    expect((await sequenceOf(db, scheduled.sequenceId)).lifecycleStatus).toBe("cancelled");
    const [dialed] = await callsOf(db, untouched.sequenceId);
    expect(engine.simulator.dialCount(dialed!.id)).toBe(1);
  });
});
