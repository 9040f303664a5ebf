import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { agents, calls, sequences, twilioCalls } from "@/db/schema";
import { newId } from "@/server/ids";
import { twilioSignature } from "@/server/simulators/twilio";
import { createInboundVoiceHandler } from "@/server/voice/twilio-realtime/inbound";
import type { TwilioRealtimeSettings } from "@/server/voice/twilio-realtime/settings";
import { buildPlaceCallRequest } from "@/server/services/call-engine/dial-call";
import { buildCallInstructions } from "@/server/voice/conversation/instructions";
import { createTestAgent, testPoolNumbers } from "../../factories";
import { useTestDb } from "../../helpers/db";
import { createOrgWithRoles } from "../dashboard/helpers";

/**
 * Callbacks (docs/sequences.md "Callbacks"): the signed inbound voice webhook, who answers (the agent that last called
 * the contact from that number, or the number's fallback), the greeting's context; and the messaging settings'
 * validation (admins only).
 */
const db = useTestDb();
const PUBLIC = "https://calls.example.test";
const settings: TwilioRealtimeSettings = {
  twilio: { accountSid: `AC${"0".repeat(31)}1`, authToken: "callback-test-token", restUsername: "x", restPassword: "x", apiBaseUrl: "http://127.0.0.1:9" },
  publicBaseUrl: PUBLIC,
  openai: { apiKey: "x", model: "gpt-realtime", realtimeUrl: "ws://127.0.0.1:9/v1/realtime", baseUrl: "http://127.0.0.1:9/v1", speechModel: "gpt-4o-mini-tts" },
  quality: { deadAirMs: 3000 },
};
const finished: string[] = [];
const handle = createInboundVoiceHandler({ settings, getDb: () => db, now: () => new Date(), finishIfReady: async (callId) => void finished.push(callId) });

let sidCounter = 0;
const newCallSid = () => `CA${(++sidCounter).toString(16).padStart(8, "0")}${"ab".repeat(12)}`;

function inbound(form: Record<string, string>, options: { sign?: boolean; tamper?: boolean; hook?: "inbound" | "status" | "recorded" } = {}) {
  const url = `${PUBLIC}/api/twilio/voice/${options.hook ?? "inbound"}`;
  const signature = twilioSignature(settings.twilio.authToken, url, form);
  const body = new URLSearchParams(options.tamper ? { ...form, From: "+12025550999" } : form).toString();
  return handle(
    new Request(`http://127.0.0.1:3000/api/twilio/voice/${options.hook ?? "inbound"}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", ...(options.sign === false ? {} : { "x-twilio-signature": signature }) },
      body,
    }),
  );
}

/**
 * A contact Ava called from `ours` (one dialed, analysed outbound call): the organization's own number (a number
 * belongs to one organization, and calls to it are routed to its owner alone).
 */
async function calledContact() {
  const { organization, as } = await createOrgWithRoles(db);
  const [ours] = (await testPoolNumbers(db, organization.id, ["617"])) as [string];
  const agent = await createTestAgent(db, organization.id, { name: "Ava", phoneNumbers: [ours], inputVariables: [{ slug: "company_name", displayName: "Company", description: "" }] });
  const sequenceId = newId("call-sequence");
  const contact = `+1202555${String(1000 + Math.floor(Math.random() * 8999))}`;
  await db.insert(sequences).values({
    id: sequenceId,
    organizationId: organization.id,
    agentId: agent.id,
    name: "Jane Doe",
    phoneNumber: contact,
    timezone: "America/New_York",
    customInputVariables: { company_name: "Acme Corp" },
    scheduledBy: "api",
    steps: agent.steps,
    lifecycleStatus: "done",
  });
  const dialedAt = new Date(Date.now() - 3_600_000);
  await db.insert(calls).values({
    id: newId("call"),
    organizationId: organization.id,
    agentId: agent.id,
    sequenceId,
    stepNumber: 1,
    scheduledAt: dialedAt,
    dialedAt,
    resultType: "Goal Not Completed",
    fromPhoneNumber: ours,
    summary: "Jane asked to hear back about pricing next week.",
  });
  return { organization, agent, sequenceId, contact, as, ours, oursSpaced: `+1 ${ours.slice(2, 5)} ${ours.slice(5, 8)} ${ours.slice(8)}` };
}

describe("callbacks: the inbound voice webhook", () => {
  it("unsigned or tampered: 403 and nothing created", async () => {
    const { sequenceId, contact, ours } = await calledContact();
    const form = { CallSid: newCallSid(), AccountSid: settings.twilio.accountSid, From: contact, To: ours, CallStatus: "ringing", Direction: "inbound" };
    expect((await inbound(form, { sign: false })).status).toBe(403);
    expect((await inbound(form, { tamper: true })).status).toBe(403);
    expect((await inbound(form, { hook: "status", sign: false })).status).toBe(403);
    expect(await db.select().from(calls).where(and(eq(calls.sequenceId, sequenceId), eq(calls.direction, "inbound")))).toEqual([]);
  });

  it("the agent that last called the contact from that number takes it: an inbound call on the sequence, greeted by name with its context", async () => {
    const { organization, agent, sequenceId, contact, ours } = await calledContact();
    const callSid = newCallSid();
    const res = await inbound({ CallSid: callSid, AccountSid: settings.twilio.accountSid, From: contact, To: ours, CallStatus: "ringing", Direction: "inbound" });
    expect(res.status).toBe(200);
    const twiml = await res.text();
    expect(twiml).toMatch(/<Connect><Stream url="wss:\/\/calls\.example\.test\/ws\/carriers\/twilio"/);
    const [call] = await db.select().from(calls).where(and(eq(calls.sequenceId, sequenceId), eq(calls.direction, "inbound")));
    expect(call).toMatchObject({ organizationId: organization.id, agentId: agent.id, stepNumber: 0, attempt: 1, resultType: "Calling", fromPhoneNumber: ours, providerCallId: callSid });
    const [twilioRow] = await db.select().from(twilioCalls).where(eq(twilioCalls.callId, call!.id));
    expect(twilioRow).toMatchObject({ callSid, answeredBy: "human", status: "in-progress" });
    // Twilio asking again for the same call gets the same call.
    await inbound({ CallSid: callSid, AccountSid: settings.twilio.accountSid, From: contact, To: ours, CallStatus: "ringing", Direction: "inbound" });
    expect(await db.select().from(calls).where(and(eq(calls.sequenceId, sequenceId), eq(calls.direction, "inbound")))).toHaveLength(1);

    const instructions = buildCallInstructions(await buildPlaceCallRequest(db, call!.id), new Date());
    expect(instructions).toContain('Open with: "Hi Jane, this is Ava, thanks for calling back."');
    expect(instructions).toContain("company_name: Acme Corp");
    expect(instructions).toContain("Jane asked to hear back about pricing next week.");

    // The number's completed status callback finishes it (by CallSid: no callId in an inbound call's URLs).
    const status = await inbound({ CallSid: callSid, AccountSid: settings.twilio.accountSid, From: contact, To: ours, CallStatus: "completed", CallDuration: "42", Direction: "inbound" }, { hook: "status" });
    expect(status.status).toBe(200);
    expect(finished).toContain(call!.id);
    // A second callback is attempt 2.
    await inbound({ CallSid: newCallSid(), AccountSid: settings.twilio.accountSid, From: contact, To: ours, CallStatus: "ringing", Direction: "inbound" });
    const attempts = await db.select({ attempt: calls.attempt }).from(calls).where(and(eq(calls.sequenceId, sequenceId), eq(calls.direction, "inbound")));
    expect(attempts.map((row) => row.attempt).sort()).toEqual([1, 2]);
  });

  it("no agent on duty or an unknown caller: the number's fallback (message, or forward to a person)", async () => {
    const { organization, agent, sequenceId, contact, as, ours, oursSpaced } = await calledContact();
    const unknown = await inbound({ CallSid: newCallSid(), From: "+12025550188", To: ours, CallStatus: "ringing", Direction: "inbound" });
    const unknownTwiml = await unknown.text();
    expect(unknownTwiml).toContain(`Thank you for calling ${organization.name}. Nobody can take your call right now`);
    expect(unknownTwiml).toContain("<Hangup/>");

    await as("admin").organizations.updatePhoneNumberSettings({ phoneNumber: oursSpaced, fallbackMode: "forward", forwardTo: "(415) 555-0100", fallbackMessage: "Connecting you to our team." });
    await db.update(agents).set({ status: "PAUSED" }).where(eq(agents.id, agent.id));
    const paused = await inbound({ CallSid: newCallSid(), From: contact, To: ours, CallStatus: "ringing", Direction: "inbound" });
    const pausedTwiml = await paused.text();
    expect(pausedTwiml).toContain("Connecting you to our team.");
    expect(pausedTwiml).toContain("<Dial>+14155550100</Dial>");
    expect(await db.select().from(calls).where(and(eq(calls.sequenceId, sequenceId), eq(calls.direction, "inbound")))).toEqual([]);
    // A withheld caller ID is an unknown caller of the number: its fallback too.
    const anonymous = await inbound({ CallSid: newCallSid(), From: "anonymous", To: ours, CallStatus: "ringing", Direction: "inbound" });
    expect(await anonymous.text()).toContain("<Dial>+14155550100</Dial>");

    // Back to taking messages: the known caller leaves one, recorded as an inbound call on their sequence (a voicemail to us).
    await as("admin").organizations.updatePhoneNumberSettings({ phoneNumber: ours, fallbackMode: "message", fallbackMessage: null });
    const messageSid = newCallSid();
    const message = await inbound({ CallSid: messageSid, From: contact, To: ours, CallStatus: "ringing", Direction: "inbound" });
    const messageTwiml = await message.text();
    const [messageCall] = await db.select().from(calls).where(and(eq(calls.sequenceId, sequenceId), eq(calls.direction, "inbound")));
    expect(messageCall).toMatchObject({ agentId: agent.id, stepNumber: 0, resultType: "Calling", providerCallId: messageSid });
    expect(messageTwiml).toContain("Please leave a message after the tone.");
    expect(messageTwiml).toMatch(/<Record [^>]*maxLength="120"/);
    expect(messageTwiml).toContain(`recordingStatusCallback="${PUBLIC}/api/carriers/twilio/calls/recording?callId=${encodeURIComponent(messageCall!.id)}"`);
    expect(messageTwiml).toContain(`action="${PUBLIC}/api/carriers/twilio/voice/recorded"`);
    const [messageRow] = await db.select().from(twilioCalls).where(eq(twilioCalls.callId, messageCall!.id));
    expect(messageRow).toMatchObject({ answeredBy: "caller-message", recordingStatus: null });
    const recorded = await inbound({ CallSid: messageSid, From: contact, To: ours, RecordingSid: `RE${"1".repeat(32)}`, Digits: "hangup" }, { hook: "recorded" });
    expect(await recorded.text()).toContain("<Hangup/>");
  });
});

describe("messaging settings (console, admins)", () => {
  it("validates From, Reply-To, the HELP text and number fallbacks with field errors; members read, cannot change", async () => {
    const { as, ours } = await calledContact();
    const admin = as("admin");
    await expect(admin.organizations.updateMessagingSettings({ emailFrom: "not an address" })).rejects.toMatchObject({ message: expect.stringContaining("emailFrom") });
    await expect(admin.organizations.updateMessagingSettings({ emailReplyTo: "Team <team@acme.example>" })).rejects.toMatchObject({ message: expect.stringContaining("emailReplyTo") });
    await expect(admin.organizations.updateMessagingSettings({ smsHelpText: "Acme: automated messages." })).rejects.toMatchObject({ message: expect.stringContaining("STOP") });
    await expect(admin.organizations.updateMessagingSettings({ smsHelpText: `${"x".repeat(470)} STOP` })).rejects.toMatchObject({ message: expect.stringContaining("segments") });
    const saved = await admin.organizations.updateMessagingSettings({ emailFrom: " Acme Sales <sales@acme.example> ", emailReplyTo: "team@acme.example", smsHelpText: "Acme: follow-ups. Reply STOP to unsubscribe." });
    expect(saved).toMatchObject({ emailFrom: "Acme Sales <sales@acme.example>", emailReplyTo: "team@acme.example", smsHelpText: "Acme: follow-ups. Reply STOP to unsubscribe." });
    expect(saved.phoneNumbers).toEqual([{ phoneNumber: ours, agentNames: ["Ava"], fallbackMode: "message", forwardTo: null, fallbackMessage: null }]);
    const reset = await admin.organizations.updateMessagingSettings({ emailReplyTo: "" });
    expect(reset).toMatchObject({ emailFrom: "Acme Sales <sales@acme.example>", emailReplyTo: null });

    await expect(admin.organizations.updatePhoneNumberSettings({ phoneNumber: "+12025559111", fallbackMode: "message" })).rejects.toMatchObject({ message: expect.stringContaining("phoneNumber: +12025559111 is not one of this organization's numbers") });
    await expect(admin.organizations.updatePhoneNumberSettings({ phoneNumber: ours, fallbackMode: "forward" })).rejects.toMatchObject({ message: expect.stringContaining("forwardTo: required") });
    await expect(admin.organizations.updatePhoneNumberSettings({ phoneNumber: ours, fallbackMode: "forward", forwardTo: ours })).rejects.toMatchObject({ message: expect.stringContaining("own numbers") });

    expect((await as("member").organizations.messagingSettings()).emailFrom).toBe("Acme Sales <sales@acme.example>");
    await expect(as("member").organizations.updateMessagingSettings({ emailFrom: null })).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(as("support").organizations.updatePhoneNumberSettings({ phoneNumber: ours, fallbackMode: "message" })).rejects.toMatchObject({ code: "FORBIDDEN" });
  });
});
