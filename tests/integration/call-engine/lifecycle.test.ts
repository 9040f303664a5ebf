import { DateTime } from "luxon";
import { describe, expect, it } from "vitest";
import { cancelSequencesByReference } from "@/server/services/sequences/cancel-sequences-by-reference";
import { apiClient } from "@/tests/helpers/api";
import { createTestClock } from "@/tests/helpers/inngest";
import { useTestDb } from "@/tests/helpers/db";
import { callStep, callsOf, cancelSequenceRun, createEngineOrganization, enroll, ledgerOf, sequenceOf, setAgentStatus, useCallEngines } from "./harness";

const db = useTestDb();
const start = useCallEngines(db, "lifecycle");

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const NINE_TO_FIVE = { startTime: 540, endTime: 1020 };
const newYork = (iso: string) => DateTime.fromISO(iso, { zone: "America/New_York" }).toJSDate();

describe("call engine: downtime, paused agents, opt-outs, cancellation, chaining", () => {
  it("dials a step that fell due during downtime once, at the next allowed moment", async () => {
    const clock = createTestClock(newYork("2026-03-02T16:00"));
    const first = await start({ clock });
    const { agent } = await createEngineOrganization(db, { steps: [callStep({ window: NINE_TO_FIVE })] });
    const lateInWindow = await enroll(db, { agent, phoneNumber: "+12025550301", scheduledAt: newYork("2026-03-02T16:55"), now: clock.now() });
    const stillOpen = await enroll(db, { agent, phoneNumber: "+12025550311", scheduledAt: newYork("2026-03-02T16:10"), now: clock.now() });
    await first.settle(); // both runners now sleep until their due time
    await first.stop();

    // Down from 16:00 to 16:30: the 16:10 call is overdue but its window is still open.
    clock.set(newYork("2026-03-02T16:30"));
    const second = await start({ clock, partition: first.runner.partition, simulator: first.simulator });
    await second.settle();
    const [open] = await callsOf(db, stillOpen.sequenceId);
    expect(open!.dialedAt).toEqual(newYork("2026-03-02T16:30"));
    expect(second.simulator.dialCount(open!.id)).toBe(1);
    await second.stop();

    // Down again until 18:30: the 16:55 call fell due and its window closed at 17:00: it moves to tomorrow 09:00.
    clock.set(newYork("2026-03-02T18:30"));
    const third = await start({ clock, partition: first.runner.partition, simulator: first.simulator });
    await third.settle();
    let [late] = await callsOf(db, lateInWindow.sequenceId);
    expect(late!.resultType).toBe("Scheduled");
    expect(late!.scheduledAt).toEqual(newYork("2026-03-03T09:00"));
    expect(late!.rescheduledAt).toEqual(newYork("2026-03-02T18:30"));
    expect(third.simulator.dialCount(late!.id)).toBe(0);
    await third.advance(16 * HOUR);
    [late] = await callsOf(db, lateInWindow.sequenceId);
    expect(late!.dialedAt).toEqual(newYork("2026-03-03T09:00"));
    expect(late!.resultType).toBe("Goal Not Completed");
    expect(third.simulator.dialCount(late!.id)).toBe(1);
    expect(third.simulator.dialCount(open!.id)).toBe(1);
  });

  it("does not dial while the agent is paused; dials once it is active again", async () => {
    const engine = await start({ start: new Date("2026-03-02T15:00:00Z") });
    const { agent } = await createEngineOrganization(db, { status: "PAUSED" });
    const created = await enroll(db, { agent, phoneNumber: "+12025550321", now: engine.clock.now() });
    await engine.advance(30 * MINUTE);
    let [call] = await callsOf(db, created.sequenceId);
    expect(call!.resultType).toBe("Scheduled");
    expect(call!.dialedAt).toBeNull();
    expect(call!.rescheduledAt).not.toBeNull();
    expect(engine.simulator.dialCount(call!.id)).toBe(0);
    await setAgentStatus(db, agent.id, "ACTIVE");
    await engine.advance(5 * MINUTE);
    [call] = await callsOf(db, created.sequenceId);
    expect(call!.resultType).toBe("Goal Not Completed");
    expect(call!.dialedAt!.getTime() - new Date("2026-03-02T15:30:00Z").getTime()).toBeLessThanOrEqual(5 * MINUTE);
  });

  it("suppresses an opted-out number: later enrollments are refused and pending calls of it are not dialed", async () => {
    const engine = await start({ start: new Date("2026-03-02T15:00:00Z") });
    const { organization, apiKey, agent } = await createEngineOrganization(db);
    const number = "+12025550335";
    const optingOut = await enroll(db, { agent, phoneNumber: number, now: engine.clock.now() });
    const laterSameNumber = await enroll(db, { agent, phoneNumber: number, scheduledAt: new Date("2026-03-02T17:00:00Z"), now: engine.clock.now() });
    await engine.settle();
    expect((await callsOf(db, optingOut.sequenceId))[0]!.resultType).toBe("Opted Out");
    expect((await sequenceOf(db, optingOut.sequenceId)).lifecycleStatus).toBe("done");

    await engine.advance(3 * HOUR);
    const [skipped] = await callsOf(db, laterSameNumber.sequenceId);
    expect(skipped!.resultType).toBe("Cancelled");
    expect(engine.simulator.dialCount(skipped!.id)).toBe(0);
    expect((await sequenceOf(db, laterSameNumber.sequenceId)).lifecycleStatus).toBe("cancelled");

    const refused = await apiClient(db)(`/agents/${agent.id}/schedule/sequence`, {
      method: "POST",
      key: apiKey,
      query: { orgId: organization.orgId },
      body: { name: "Jane Doe", phoneNumber: "+1 (202) 555-0335", company_name: "Acme Corp" },
    });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toBe("OPTED_OUT");
  });

  it("cancellation mid-sleep: nothing more is dialed", async () => {
    const engine = await start({ start: new Date("2026-03-02T15:00:00Z") });
    const { organization, agent } = await createEngineOrganization(db);
    const created = await enroll(db, { agent, phoneNumber: "+12025550341", scheduledAt: new Date("2026-03-02T16:00:00Z"), variables: { company_name: "Acme", crm_ref: "CANCEL-1" }, now: engine.clock.now() });
    await engine.settle();
    const result = await cancelSequencesByReference(db, { organizationId: organization.id, referenceKey: "crm_ref", referenceValue: "CANCEL-1", now: engine.clock.now() });
    expect(result.cancelledSequenceIds).toEqual([created.sequenceId]);
    await cancelSequenceRun(created.sequenceId);
    await engine.advance(3 * HOUR);
    const [call] = await callsOf(db, created.sequenceId);
    expect(call!.resultType).toBe("Cancelled");
    expect(engine.simulator.dialCount(call!.id)).toBe(0);
  });

  it("cancellation mid-call: the call in the air ends, is analysed and charged; no next step", async () => {
    const engine = await start({ start: new Date("2026-03-02T15:00:00Z") });
    const { organization, agent } = await createEngineOrganization(db);
    const created = await enroll(db, { agent, phoneNumber: "+12025550351", variables: { company_name: "Acme", crm_ref: "CANCEL-2" }, now: engine.clock.now() });
    await engine.runner.drain(); // dialed; the simulator holds the conversation
    const [calling] = await callsOf(db, created.sequenceId);
    expect(calling!.resultType).toBe("Calling");
    await cancelSequencesByReference(db, { organizationId: organization.id, referenceKey: "crm_ref", referenceValue: "CANCEL-2", now: engine.clock.now() });
    await cancelSequenceRun(created.sequenceId);
    await engine.runner.drain();
    expect((await callsOf(db, created.sequenceId))[0]!.resultType).toBe("Calling");
    engine.clock.advance(3 * MINUTE);
    await engine.settle();
    const calls = await callsOf(db, created.sequenceId);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.resultType).toBe("Goal Not Completed");
    expect((await sequenceOf(db, created.sequenceId)).lifecycleStatus).toBe("cancelled");
    expect((await ledgerOf(db, organization.id)).map((row) => row.callId)).toEqual([calls[0]!.id]);
    expect(engine.analyzed.find((event) => event.callId === calls[0]!.id)?.payload.sequence.lifecycleStatus).toBe("cancelled");
    await engine.advance(2 * 24 * HOUR);
    expect(await callsOf(db, created.sequenceId)).toHaveLength(1);
  });

  it("chaining: each call that misses the goal activates the group's next waiting contact, in order", async () => {
    const engine = await start({ start: new Date("2026-03-02T15:00:00Z") });
    const { agent } = await createEngineOrganization(db, { steps: [callStep()] });
    const now = engine.clock.now();
    const groupKey = "company_name=Acme";
    const a = await enroll(db, { agent, phoneNumber: "+12025550361", groupKey, now }); // Goal Not Completed
    const b = await enroll(db, { agent, phoneNumber: "+12025550363", groupKey, now }); // Busy
    const c = await enroll(db, { agent, phoneNumber: "+12025550368", groupKey, now }); // Goal Completed
    const d = await enroll(db, { agent, phoneNumber: "+12025550371", groupKey, now }); // stays waiting
    expect([a, b, c, d].map((created) => created.chainStatus)).toEqual(["active", "waiting", "waiting", "waiting"]);
    await engine.advance(HOUR);
    const first = async (sequenceId: string) => (await callsOf(db, sequenceId))[0];
    expect((await first(a.sequenceId))!.resultType).toBe("Goal Not Completed");
    expect((await first(b.sequenceId))!.resultType).toBe("Busy");
    expect((await first(c.sequenceId))!.resultType).toBe("Goal Completed");
    expect(await first(d.sequenceId)).toBeUndefined();
    expect((await sequenceOf(db, b.sequenceId)).chainActivatedBy).toBe(a.sequenceId);
    expect((await sequenceOf(db, c.sequenceId)).chainActivatedBy).toBe(b.sequenceId);
    expect((await sequenceOf(db, d.sequenceId)).chainStatus).toBe("waiting");
    const dialedAt = await Promise.all([a, b, c].map(async (created) => (await first(created.sequenceId))!.dialedAt!.getTime()));
    expect(dialedAt[0]).toBeLessThanOrEqual(dialedAt[1]!);
    expect(dialedAt[1]).toBeLessThanOrEqual(dialedAt[2]!);
  });
});
