import { describe, expect, it } from "vitest";
import { simulateCallback } from "@/server/services/call-engine/simulate-callback";
import { getSequenceView } from "@/server/services/conversations/get-sequence-view";
import { useTestDb } from "../../helpers/db";
import { callsOf, createEngineOrganization, enroll, ledgerOf, sequenceOf, setAgentStatus, useCallEngines } from "../call-engine/harness";

/**
 * Embedded mode (VOICE_ENGINE=simulator): "Simulate a callback from this contact" — the same decision as a Twilio
 * callback, the inbound call played by the deterministic simulator, analysed and charged on the sequence without moving it.
 */
const db = useTestDb();
const start = useCallEngines(db, "simulated-callback");

describe("a simulated callback (embedded voice simulator)", () => {
  it("the agent that called takes it: an inbound call on the sequence, analysed and charged; the sequence does not move", async () => {
    const engine = await start({ start: new Date() });
    const { organization, agent } = await createEngineOrganization(db);
    const created = await enroll(db, { agent, phoneNumber: "+12025550171", now: engine.clock.now() });
    await engine.settle();
    const before = await callsOf(db, created.sequenceId);
    expect(before.map((call) => [call.stepNumber, call.resultType])).toEqual([
      [1, "Goal Not Completed"],
      [2, "Scheduled"],
    ]);
    const view = await getSequenceView(db, { organizationId: organization.id, sequenceId: created.sequenceId, voiceEngineKind: "simulator" });
    expect(view.canSimulateCallback).toBe(true);

    const outcome = await simulateCallback(db, { organizationId: organization.id, sequenceId: created.sequenceId, voiceEngine: engine.simulator, now: engine.clock.now() });
    expect(outcome).toMatchObject({ outcome: "agent", from: "+12025550171", to: before[0]!.fromPhoneNumber });
    await engine.settle();
    const after = await callsOf(db, created.sequenceId);
    const callback = after.find((call) => call.direction === "inbound")!;
    expect(callback).toMatchObject({ stepNumber: 0, attempt: 1, resultType: "Goal Not Completed", fromPhoneNumber: before[0]!.fromPhoneNumber });
    expect(callback.transcript).toBeTruthy();
    // Transcribed, not recorded (as a Twilio callback): the audit trail says so and no audio is kept, while the
    // outbound call before it was recorded.
    expect(callback.disclosures?.recording.state).toBe("not-recorded");
    expect(callback.recordingKey).toBeNull();
    expect(before[0]!.recordingKey).not.toBeNull();
    expect(after.find((call) => call.stepNumber === 2)!.resultType).toBe("Scheduled");
    expect((await sequenceOf(db, created.sequenceId)).lifecycleStatus).toBe("in progress");
    expect((await ledgerOf(db, organization.id)).filter((row) => row.callId === callback.id)).toEqual([expect.objectContaining({ agentId: agent.id, credits: expect.any(Number) })]);
    expect(engine.analyzed.map((event) => event.callId)).toContain(callback.id);

    // A paused agent is not on duty: the number's fallback, nothing placed.
    await setAgentStatus(db, agent.id, "PAUSED");
    const fallback = await simulateCallback(db, { organizationId: organization.id, sequenceId: created.sequenceId, voiceEngine: engine.simulator, now: engine.clock.now() });
    expect(fallback).toMatchObject({ outcome: "fallback", reason: "agent-not-on-duty", fallbackMode: "message" });
    expect((await callsOf(db, created.sequenceId)).filter((call) => call.direction === "inbound")).toHaveLength(1);
  });

  it("refused with a real engine, for a contact never called, and for another organization's sequence", async () => {
    const engine = await start({ start: new Date() });
    const { organization, agent } = await createEngineOrganization(db);
    const created = await enroll(db, { agent, phoneNumber: "+12025550181", now: engine.clock.now(), withoutRunner: true });
    await expect(simulateCallback(db, { organizationId: organization.id, sequenceId: created.sequenceId, voiceEngine: engine.simulator, now: engine.clock.now() })).rejects.toMatchObject({ code: "INVALID_REQUEST", message: expect.stringContaining("not been called") });
    await expect(simulateCallback(db, { organizationId: organization.id, sequenceId: created.sequenceId, voiceEngine: { ...engine.simulator, kind: "twilio-realtime" }, now: engine.clock.now() })).rejects.toMatchObject({ code: "INVALID_REQUEST" });
    const other = await createEngineOrganization(db);
    await expect(simulateCallback(db, { organizationId: other.organization.id, sequenceId: created.sequenceId, voiceEngine: engine.simulator, now: engine.clock.now() })).rejects.toMatchObject({ code: "SEQUENCE_NOT_FOUND" });
  });
});
