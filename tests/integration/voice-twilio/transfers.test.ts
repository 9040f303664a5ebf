import { eq } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agents, calls, callTransfers, creditTransactions, type TransferConfig } from "@/db/schema";
import { validateBookingConfig } from "@/server/services/calendar/booking-config";
import { connectProvider } from "@/server/services/calendar/provider-connection";
import { simulatorBookingConfig } from "@/server/services/calendar/simulator-fixtures";
import { clipText } from "@/server/simulators/voice-clips/clips";
import { ASKS_FOR_A_PERSON } from "@/server/simulators/voice-script";
import { apiClient } from "@/tests/helpers/api";
import { useTestDb } from "@/tests/helpers/db";
import { createTestAgent, createTestOrganization, testPoolNumbers } from "@/tests/factories";
import { AGENT_DEFINITIONS, callStep } from "../call-engine/harness";
import { useRecordingsSandbox } from "../conversations/fixtures";
import { useChiliPiperSimulator } from "../meetings/helpers";
import { createLoopbackEndpoint, startReceiver, useTestEncryptionKey } from "../webhooks/fixtures";
import { startVoiceStack, type VoiceStack } from "./harness";

useRecordingsSandbox();
useTestEncryptionKey();
const db = useTestDb();
const api = apiClient(db);
const chiliPiper = useChiliPiperSimulator();
let stack: VoiceStack;

beforeAll(async () => {
  stack = await startVoiceStack(db, { speed: 2 });
});
afterAll(async () => {
  await stack?.stop();
});

/** Targets by the simulator's rule (555-02XX): …0 answers, …4 rings out. */
const ANSWERS = "+12025550210";
const RINGS_OUT = "+12025550214";

async function organizationWithAgent(transferConfig: TransferConfig | null, phoneMenuGoal: string | null = null) {
  const { organization, apiKey } = await createTestOrganization(db, { monthlyCreditAllocation: 10_000 });
  stack.watchdogScope.push(organization.id);
  await connectProvider(db, { organizationId: organization.id, apiKey: chiliPiper.current.createApiKey("full-access") });
  const bookingConfig = await validateBookingConfig(db, { organizationId: organization.id, bookingConfig: simulatorBookingConfig("link") });
  const agent = await createTestAgent(db, organization.id, {
    name: "Ava",
    phoneNumbers: await testPoolNumbers(db, organization.id, ["202"]),
    steps: [callStep()],
    bookingConfig,
    prompt: "You are Ava from Acme. Offer a short follow-up meeting.",
    callHandling: { transferConfig, phoneMenuGoal },
    ...AGENT_DEFINITIONS,
  });
  const receiver = await startReceiver();
  const { secret } = await createLoopbackEndpoint(db, organization.id, receiver.url);
  return { organization, apiKey, agent, receiver, secret };
}

async function enroll(apiKey: string, agentId: string, phoneNumber: string) {
  const res = await api(`/agents/${agentId}/schedule/sequence`, {
    method: "POST",
    key: apiKey,
    body: { name: "Jane Doe", phoneNumber, timezone: "America/New_York", toEmailAddress: `jane.${phoneNumber.slice(-4)}@example.org`, company_name: "Acme Corp", crm_ref: `CRM-${phoneNumber.slice(-2)}` },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.sequence.sequenceId as string;
}

function explain() {
  return [...stack.twilio.calls.values()].map((call) => ({ to: call.to, status: call.status, said: call.said, events: call.events.slice(0, 40) }));
}

async function webhookOf(receiver: Awaited<ReturnType<typeof startReceiver>>, secret: string, label: string) {
  await stack.runUntil(() => receiver.requests.length >= 1, { timeoutMs: 150_000, label: `${label}: ${JSON.stringify(explain()).slice(0, 3000)}` });
  return new Webhook(secret).verify(receiver.requests[0]!.body, receiver.requests[0]!.headers) as Record<string, any>;
}

const transferTo = (destination: string, mode: "cold" | "warm"): TransferConfig => ({
  mode,
  targets: [{ label: "sales", destination, whenToUse: "pricing and orders" }],
  answerTimeoutSeconds: mode === "warm" ? 12 : null,
  hours: null,
  timezone: null,
  fallback: "book_meeting",
});

// Whole calls at twice real time: a warm transfer that rings out is ~12 s of ringing, then the meeting; the default
// 30 s per test is too short for it under load (webhookOf waits up to 150 s and explains what it saw).
describe("transfers and phone menus with VOICE_ENGINE=twilio-realtime (simulators)", { timeout: 180_000 }, () => {
  it("cold: the hand-over line, then <Dial> with our number as caller ID; the person talks with the caller; the agent is gone", async () => {
    const { apiKey, agent, receiver, secret } = await organizationWithAgent(transferTo(ANSWERS, "cold"));
    const contact = "+12025550141";
    stack.twilio.setCallee(contact, ASKS_FOR_A_PERSON);
    const sequenceId = await enroll(apiKey, agent.id, contact);
    const payload = await webhookOf(receiver, secret, "cold transfer");
    expect(payload.sequence.sequenceId).toBe(sequenceId);
    const caller = stack.twilio.callTo(contact)!;
    const person = stack.twilio.callTo(ANSWERS)!;
    expect(caller.events).toContain(`dial:${ANSWERS}`);
    expect(person.from).toBe(agent.phoneNumbers[0]);
    expect(person.status).toBe("completed");
    const action = payload.callResult.agentActions.find((candidate: { actionKey: string }) => candidate.actionKey === "transfer_call");
    expect(action, JSON.stringify(payload.callResult.agentActions)).toMatchObject({ status: "completed", metadata: { targetLabel: "sales", mode: "cold", answered: true } });
    expect(action.metadata.humanLegSeconds).toBeGreaterThan(3);
    expect(JSON.stringify(payload)).toContain(clipText("agent.transferring"));
  });

  it("warm, answered: hold music, the whisper on the person's leg only, both bridged, the agent gone; charged in two parts", async () => {
    const { apiKey, agent, receiver, secret } = await organizationWithAgent(transferTo(ANSWERS.replace(/0$/, "1"), "warm"));
    const contact = "+12025550142";
    stack.twilio.setCallee(contact, ASKS_FOR_A_PERSON);
    await enroll(apiKey, agent.id, contact);
    const payload = await webhookOf(receiver, secret, "warm transfer");
    const person = stack.twilio.callTo(ANSWERS.replace(/0$/, "1"))!;
    expect(person.said[0]).toMatch(/^Incoming transfer for sales\. Reason: .+ The caller just said: ".*sales team, please\?"/);
    expect(person.events.some((event) => event.startsWith("conference:"))).toBe(true);
    const [row] = await db.select().from(callTransfers).where(eq(callTransfers.callId, payload.callId));
    expect(row).toMatchObject({ mode: "warm", outcome: "completed", legCallSid: person.sid });
    const action = payload.callResult.agentActions.find((candidate: { actionKey: string }) => candidate.actionKey === "transfer_call");
    expect(action.metadata).toMatchObject({ answered: true, mode: "warm" });
    const [charge] = await db.select().from(creditTransactions).where(eq(creditTransactions.callId, payload.callId));
    expect(charge!.description).toContain("with a person");
  });

  it("warm, not answered: the agent comes back with the conversation, says so and books the meeting", async () => {
    const { apiKey, agent, receiver, secret } = await organizationWithAgent(transferTo(RINGS_OUT, "warm"));
    const contact = "+12025550143";
    stack.twilio.setCallee(contact, ASKS_FOR_A_PERSON);
    await enroll(apiKey, agent.id, contact);
    const payload = await webhookOf(receiver, secret, "unanswered warm transfer");
    expect(payload.crmSchedulingDetails).toMatchObject({ status: "booked" });
    const [call] = await db.select().from(calls).where(eq(calls.id, payload.callId));
    expect(call!.transcript).toContain(clipText("agent.transfer-no-answer"));
    const action = payload.callResult.agentActions.find((candidate: { actionKey: string }) => candidate.actionKey === "transfer_call");
    expect(action).toMatchObject({ status: "failed", metadata: { answered: false, humanLegSeconds: 0, outcome: "no-answer" } });
  });

  it("a phone menu: the agent presses 1, reaches the sales desk and talks to the person; the keys are on the call", async () => {
    const { apiKey, agent, receiver, secret } = await organizationWithAgent(null, "the sales team");
    const contact = "+12025550144";
    stack.twilio.setMenu(contact);
    await enroll(apiKey, agent.id, contact);
    const payload = await webhookOf(receiver, secret, "phone menu");
    const caller = stack.twilio.callTo(contact)!;
    expect(caller.digitsPlayed).toEqual(["1"]);
    expect(payload.callResult.agentActions).toEqual(expect.arrayContaining([expect.objectContaining({ actionKey: "press_digits", metadata: expect.objectContaining({ digits: "1" }) })]));
    const [call] = await db.select().from(calls).where(eq(calls.id, payload.callId));
    expect(call!.transcript).toContain(clipText("person.sales-hello"));
    const [stored] = await db.select({ phoneMenuGoal: agents.phoneMenuGoal }).from(agents).where(eq(agents.id, agent.id));
    expect(stored!.phoneMenuGoal).toBe("the sales team");
  });
});
