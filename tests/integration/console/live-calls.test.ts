import { eq } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { calls, callTranscriptLines } from "@/db/schema";
import { handleVoiceProviderEvent } from "@/server/services/call-engine/voice-events";
import { setVoiceEngine } from "@/server/voice";
import { createSimulatedVoiceEngine } from "@/server/voice/simulator/simulator";
import { useTestDb } from "../../helpers/db";
import { createTestAgent, createTestCall, createTestOrganization, createTestSequence } from "../../factories";
import { placeCallRequest } from "../../unit/voice/fixtures";
import { apiKeyCaller, consoleCaller } from "./helpers";

const db = useTestDb();
afterEach(() => setVoiceEngine(undefined));

async function orgWithLiveCall(phoneNumber = "+12025550101") {
  const { organization, apiKey } = await createTestOrganization(db, { name: "Live calls" });
  const agent = await createTestAgent(db, organization.id, { name: "Caller" });
  const sequence = await createTestSequence(db, { organizationId: organization.id, agentId: agent.id, name: "Live Contact", phoneNumber, timezone: "Europe/Paris" });
  const call = await createTestCall(db, {
    organizationId: organization.id,
    agentId: agent.id,
    sequenceId: sequence.id,
    scheduledAt: new Date(Date.now() - 60_000),
    dialedAt: new Date(Date.now() - 30_000),
    resultType: "Calling",
  });
  return { organization, apiKey, agent, sequence, call };
}

describe("calls.listLive / liveTranscript", () => {
  it("lists calls in progress as ringing, then answered with the duration so far and the lines after a cursor", async () => {
    const data = await orgWithLiveCall();
    // A finished call is not live.
    await createTestCall(db, { organizationId: data.organization.id, agentId: data.agent.id, sequenceId: data.sequence.id, stepNumber: 2, scheduledAt: new Date(), resultType: "Goal Completed" });
    const member = await consoleCaller(db, data.organization.id, "member");
    const ringing = await member.calls.listLive();
    expect(ringing.calls).toHaveLength(1);
    expect(ringing.calls[0]).toMatchObject({
      callId: data.call.id,
      state: "ringing",
      answeredAt: null,
      lineCount: 0,
      contact: { name: "Live Contact", timezone: "Europe/Paris" },
      agent: { name: "Caller" },
    });
    expect(ringing.calls[0]!.secondsSoFar).toBeGreaterThanOrEqual(29);

    await db.insert(callTranscriptLines).values([
      { organizationId: data.organization.id, callId: data.call.id, itemId: "t1", speaker: "customer", text: "Hello?", offsetMs: 0, createdAt: new Date(Date.now() - 10_000) },
      { organizationId: data.organization.id, callId: data.call.id, itemId: "t2", speaker: "agent", text: "Hi, this is Caller.", offsetMs: 4_000, createdAt: new Date(Date.now() - 6_000) },
    ]);
    const answered = (await member.calls.listLive()).calls[0]!;
    expect(answered).toMatchObject({ state: "answered", lineCount: 2 });
    expect(answered.secondsSoFar).toBeGreaterThanOrEqual(9);
    expect(answered.secondsSoFar).toBeLessThan(20);

    const first = await member.calls.liveTranscript({ callId: data.call.id });
    expect(first).toMatchObject({ live: true, resultType: "Calling" });
    expect(first.lines.map((line) => line.text)).toEqual(["Hello?", "Hi, this is Caller."]);
    const after = await member.calls.liveTranscript({ callId: data.call.id, after: first.lines[0]!.cursor });
    expect(after.lines.map((line) => line.text)).toEqual(["Hi, this is Caller."]);
    expect((await member.calls.liveTranscript({ callId: data.call.id, after: first.nextCursor! })).lines).toEqual([]);
  });

  it("shows another organization nothing and refuses API keys", async () => {
    const data = await orgWithLiveCall();
    const other = await createTestOrganization(db, { name: "Other" });
    const outsider = await consoleCaller(db, other.organization.id, "admin");
    expect((await outsider.calls.listLive()).calls).toEqual([]);
    await expect(outsider.calls.liveTranscript({ callId: data.call.id })).rejects.toMatchObject({ cause: { code: "CALL_NOT_FOUND" } });
    await expect(outsider.calls.hangUp({ callId: data.call.id })).rejects.toMatchObject({ cause: { code: "CALL_NOT_FOUND" } });
    await expect(apiKeyCaller(db, data.apiKey).calls.listLive()).rejects.toMatchObject({ cause: { code: "FORBIDDEN" } });
    await expect(outsider.calls.liveTranscript({ callId: "x".repeat(129) })).rejects.toMatchObject({ code: "BAD_REQUEST" });
  });
});

describe("calls.hangUp", () => {
  it("lets admins end a simulated call in progress: it ends with the lines spoken so far", async () => {
    const data = await orgWithLiveCall();
    const engine = createSimulatedVoiceEngine({
      pace: "realtime",
      msPerSimulatedSecond: 50,
      maxConversationMs: 20_000,
      transport: async (event) => {
        const outcome = await handleVoiceProviderEvent(db, { event });
        return outcome.status === "accepted" ? (outcome.toolResult ?? null) : null;
      },
    });
    setVoiceEngine(engine);
    await engine.placeCall({ ...placeCallRequest(data.sequence.phoneNumber), callId: data.call.id, organizationId: data.organization.id });
    const admin = await consoleCaller(db, data.organization.id, "admin");
    const support = await consoleCaller(db, data.organization.id, "support");
    await expect.poll(async () => (await admin.calls.listLive()).calls[0]?.lineCount ?? 0, { timeout: 10_000 }).toBeGreaterThanOrEqual(2);

    await expect(support.calls.hangUp({ callId: data.call.id })).rejects.toMatchObject({ cause: { code: "FORBIDDEN" } });
    expect(await admin.calls.hangUp({ callId: data.call.id })).toEqual({ callId: data.call.id, hungUp: true });
    await engine.idle();
    const [ended] = await db.select().from(calls).where(eq(calls.id, data.call.id));
    expect(ended!.resultType).toBe("Processing Analysis");
    expect(ended!.disposition).toBe("answered");
    const stored = await db.select().from(callTranscriptLines).where(eq(callTranscriptLines.callId, data.call.id));
    expect(ended!.transcript!.split("\n")).toHaveLength(stored.length);
    expect((await admin.calls.listLive()).calls).toEqual([]);
    expect((await admin.calls.liveTranscript({ callId: data.call.id })).live).toBe(false);
    // Over: nothing to hang up.
    await expect(admin.calls.hangUp({ callId: data.call.id })).rejects.toMatchObject({ cause: { code: "CONFLICT" } });
  });
});
