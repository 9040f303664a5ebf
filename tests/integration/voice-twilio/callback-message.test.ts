import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agents, calls } from "@/db/schema";
import { apiClient } from "@/tests/helpers/api";
import { useTestDb } from "@/tests/helpers/db";
import { createTestAgent, createTestOrganization } from "@/tests/factories";
import { AGENT_DEFINITIONS, callStep } from "../call-engine/harness";
import { useRecordingsSandbox } from "../conversations/fixtures";
import { PUBLIC_BASE_URL, startVoiceStack, type VoiceStack } from "./harness";

/**
 * A callback to a number whose agent is not on duty and that takes messages (docs/sequences.md "Callbacks"), end to end
 * through the Twilio simulator: the caller hears the message and the beep, leaves theirs (<Record>), and it is kept on
 * their sequence as an inbound Voicemail call whose recording is the message.
 */
useRecordingsSandbox();
const db = useTestDb();
const api = apiClient(db);
let stack: VoiceStack;

beforeAll(async () => {
  stack = await startVoiceStack(db, { speed: 4 });
});
afterAll(async () => {
  await stack?.stop();
});

describe("a callback when no agent is on duty", () => {
  it("the known caller leaves a message: recorded on their sequence as an inbound Voicemail with the recording", async () => {
    const { organization, apiKey } = await createTestOrganization(db, { monthlyCreditAllocation: 10_000 });
    stack.watchdogScope.push(organization.id);
    const agent = await createTestAgent(db, organization.id, { name: "Ava", phoneNumbers: ["+13125550109"], steps: [callStep()], ...AGENT_DEFINITIONS });
    const enrolled = await api(`/agents/${agent.id}/schedule/sequence`, { method: "POST", key: apiKey, body: { name: "Jane Doe", phoneNumber: "+13125550191", timezone: "America/New_York", company_name: "Acme Corp" } });
    expect(enrolled.status, JSON.stringify(enrolled.body)).toBe(201);
    const sequenceId = enrolled.body.sequence.sequenceId as string;
    const callsOf = () => db.select().from(calls).where(eq(calls.sequenceId, sequenceId));
    await stack.runUntil(async () => (await callsOf()).every((call) => call.resultType !== "Scheduled" && call.resultType !== "Calling" && call.resultType !== "Processing Analysis"), { timeoutMs: 90_000, label: "the outbound call's result" });

    await db.update(agents).set({ status: "PAUSED" }).where(eq(agents.id, agent.id));
    const callback = stack.twilio.callFrom({ from: "+13125550191", to: "+13125550109", url: `${PUBLIC_BASE_URL}/api/twilio/voice/inbound`, statusCallback: `${PUBLIC_BASE_URL}/api/twilio/voice/status`, lines: ["callee.not-now"] });
    const inboundOf = async () => (await db.select().from(calls).where(and(eq(calls.sequenceId, sequenceId), eq(calls.direction, "inbound"))))[0];
    await stack.runUntil(async () => (await inboundOf())?.analyzedAt != null, { timeoutMs: 90_000, label: "the message analysed" });

    const message = (await inboundOf())!;
    expect(message).toMatchObject({ stepNumber: 0, agentId: agent.id, resultType: "Voicemail", disposition: "voicemail", fromPhoneNumber: "+13125550109" });
    expect(message.recordingKey, "the message's recording").toBeTruthy();
    expect(callback.said[0]).toContain("Please leave a message after the tone.");
    expect(callback.events).toContain("verb:Record");
    expect(callback.status).toBe("completed");
    expect(stack.twilio.callbacks.filter((entry) => entry.kind === "recording" && entry.params.CallSid === callback.sid).map((entry) => entry.status)).toEqual([200]);
  });
});
