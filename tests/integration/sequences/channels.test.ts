import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { and, eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { POST as unsubscribeRoute } from "@/app/api/unsubscribe/[token]/route";
import { creditTransactions, emailSuppressions, optOuts } from "@/db/schema";
import { validateBookingConfig } from "@/server/services/calendar/booking-config";
import { connectProvider } from "@/server/services/calendar/provider-connection";
import { simulatorBookingConfig } from "@/server/services/calendar/simulator-fixtures";
import { STOP_CONFIRMATION } from "@/server/services/messaging/sms-keywords";
import { createTestAgent, createTestOrganization, testPoolNumbers } from "../../factories";
import { apiClient } from "../../helpers/api";
import { useTestDb } from "../../helpers/db";
import { AGENT_DEFINITIONS, callStep, callsOf, sequenceOf, startCallEngine, type CallEngineHarness } from "../call-engine/harness";
import { useChiliPiperSimulator } from "../meetings/helpers";
import { headerOf, messageFunctions, messagesOf, messageStep, PUBLIC_BASE_URL, startTestSmtpServer, startTwilioForMessages, textPartOf } from "./helpers";

/**
 * CALL → EMAIL → SMS → CALL through /api/v1 with the real functions on the embedded runner: the simulated voice
 * engine, a real SMTP server in process, the project's Twilio simulator (Messages) calling back the messaging webhooks
 * over HTTP, signed.
 */
const db = useTestDb();
const sim = useChiliPiperSimulator();
const DAY = 86_400_000;
let smtp: Awaited<ReturnType<typeof startTestSmtpServer>>;
let twilio: Awaited<ReturnType<typeof startTwilioForMessages>> | null = null;
let engine: CallEngineHarness | null = null;

beforeAll(async () => {
  process.env.DATA_DIR = mkdtempSync(path.join(os.tmpdir(), "sequence-channels-"));
  smtp = await startTestSmtpServer();
  process.env.SMTP_URL = smtp.url;
  process.env.MAIL_FROM = "Console <console@example.test>";
});
afterAll(async () => {
  await smtp.stop();
  delete process.env.SMTP_URL;
  delete process.env.MAIL_FROM;
});
afterEach(async () => {
  await engine?.stop();
  await twilio?.stop();
  engine = null;
  twilio = null;
});

const EMAIL = messageStep("EMAIL", {
  subject: "Next steps with {{agent_name}} for {{company_name}}",
  body: "Hi {{first_name}},\n\nThanks for the call. {{last_call_summary}}\n\nYour meeting: {{meeting_time}}\nJoin: {{meeting_link}}\n\nBest,\n{{agent_name}}",
});
const SMS = messageStep("SMS", { body: "Hi {{first_name}}, {{agent_name}} here. Reply STOP to opt out." });
const FOUR_STEPS = [callStep(), EMAIL, SMS, callStep({ delaySeconds: 86_400 })];

async function start() {
  const clock = { current: null as CallEngineHarness | null };
  twilio = null;
  engine = await startCallEngine(db, {
    start: new Date(),
    extraFunctions: (context) => messageFunctions({ db, smtpUrl: smtp.url, messaging: () => twilio!.messaging })(context),
  });
  clock.current = engine;
  twilio = await startTwilioForMessages(db, engine.clock);
  return engine;
}

async function organizationWithAgent() {
  const { organization, apiKey } = await createTestOrganization(db, { monthlyCreditAllocation: 10_000 });
  await connectProvider(db, { organizationId: organization.id, apiKey: sim.current.createApiKey("full-access") });
  const bookingConfig = await validateBookingConfig(db, { organizationId: organization.id, bookingConfig: simulatorBookingConfig("link") });
  const agent = await createTestAgent(db, organization.id, { name: "Ava", phoneNumbers: await testPoolNumbers(db, organization.id, ["202", "415"]), steps: FOUR_STEPS, bookingConfig, ...AGENT_DEFINITIONS });
  engine!.watchdogScope.push(organization.id);
  return { organization, apiKey, agent };
}

/** Runs the engine until the Twilio simulator's callbacks are in too. */
async function settleAll() {
  for (let round = 0; round < 5; round += 1) {
    await engine!.settle();
    await twilio!.simulator.messaging.idle();
  }
  await engine!.settle();
}

describe("a sequence that calls, emails and texts", () => {
  it("CALL → EMAIL (meeting link) → SMS from the closest number → the last CALL skipped after the goal → done", async () => {
    await start();
    const { organization, apiKey, agent } = await organizationWithAgent();
    const api = apiClient(db, { now: engine!.clock.now });
    const enrolled = await api(`/agents/${agent.id}/schedule/sequence`, {
      method: "POST",
      key: apiKey,
      body: { name: "Dana Reyes", phoneNumber: "+14155550170", toEmailAddress: "dana@example.org", company_name: "Acme", timezone: "America/Los_Angeles" },
    });
    expect(enrolled.status).toBe(201);
    const { sequenceId } = enrolled.body.sequence;
    await settleAll();

    const [first] = await callsOf(db, sequenceId);
    expect(first!.resultType).toBe("Goal Completed");
    const meeting = first!.followUpMeetingDetails!;
    expect(meeting.meetingLink).toMatch(/^https:/);

    // The email, received by the SMTP server, rendered, with RFC 8058 headers.
    const mail = smtp.received.find((m) => m.to.includes("dana@example.org"));
    expect(mail).toBeDefined();
    expect(headerOf(mail!.raw, "Subject")).toBe("Next steps with Ava for Acme");
    const text = textPartOf(mail!.raw);
    expect(text).toContain("Hi Dana,");
    expect(text).toContain(first!.summary.slice(0, 30));
    expect(text).toContain(`Join: ${meeting.meetingLink}`);
    expect(text).toMatch(/Your meeting: \w+day, \w+ \d+ at \d+:\d\d [AP]M P[SD]T/);
    const listUnsubscribe = headerOf(mail!.raw, "List-Unsubscribe")!;
    expect(listUnsubscribe).toMatch(/^<https?:\/\/[^>]+\/api\/unsubscribe\/[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}>$/);
    expect(headerOf(mail!.raw, "List-Unsubscribe-Post")).toBe("List-Unsubscribe=One-Click");
    expect(mail!.raw).toMatch(/Content-Type: text\/html/);

    // The SMS, sent from the pool's closest number (415 → 415), delivered per the signed status callbacks.
    const sms = [...twilio!.simulator.messaging.messages.values()].find((m) => m.to === "+14155550170");
    expect(sms).toMatchObject({ from: agent.phoneNumbers[1], body: "Hi Dana, Ava here. Reply STOP to opt out.", status: "delivered" });
    const callbacks = twilio!.simulator.messaging.callbacks.filter((c) => c.kind === "message-status" && c.params.MessageSid === sms!.sid);
    expect(callbacks.map((c) => [c.params.MessageStatus, c.status])).toEqual([
      ["sent", 200],
      ["delivered", 200],
    ]);
    expect(callbacks[0]!.url).toMatch(new RegExp(`^${PUBLIC_BASE_URL}/api/carriers/twilio/messages/status\\?messageId=`));

    const messages = await messagesOf(db, sequenceId);
    expect(messages.map((m) => [m.stepNumber, m.channel, m.status])).toEqual([
      [2, "email", "sent"],
      [3, "sms", "delivered"],
    ]);
    const calls = await callsOf(db, sequenceId);
    expect(calls.map((c) => [c.stepNumber, c.resultType])).toEqual([
      [1, "Goal Completed"],
      [4, "Cancelled"],
    ]);
    expect(calls[1]!.summary).toBe("Skipped: the goal was completed in an earlier call.");
    expect((await sequenceOf(db, sequenceId)).lifecycleStatus).toBe("done");

    // Metadata: calls unchanged, messages additive; the events feed; the ledger with the agent.
    const metadata = await api(`/conversations/metadata/${sequenceId}`, { key: apiKey });
    expect(metadata.status).toBe(200);
    expect(metadata.body.metadata).toHaveLength(2);
    expect(metadata.body.messages).toEqual([
      expect.objectContaining({ stepNumber: 2, channel: "email", status: "sent", to: "dana@example.org", subject: "Next steps with Ava for Acme", credits: 1 }),
      expect.objectContaining({ stepNumber: 3, channel: "sms", status: "delivered", from: agent.phoneNumbers[1], segments: 1, credits: 1, providerMessageId: sms!.sid }),
    ]);
    const events = await api("/events", { key: apiKey });
    expect(events.body.events.map((e: { type: string }) => e.type)).toEqual(expect.arrayContaining(["email.sent", "sms.sent", "sms.delivered"]));
    const ledger = await db.select().from(creditTransactions).where(eq(creditTransactions.organizationId, organization.id));
    expect(ledger.filter((row) => row.messageId).map((row) => [row.agentId, row.credits])).toEqual([
      [agent.id, 1],
      [agent.id, 1],
    ]);
  });

  it("a STOP reply suppresses the number at once, answers with the confirmation, skips the last CALL; the unsubscribe link suppresses the address", async () => {
    await start();
    const { organization, apiKey, agent } = await organizationWithAgent();
    const api = apiClient(db, { now: engine!.clock.now });
    const enrolled = await api(`/agents/${agent.id}/schedule/sequence`, {
      method: "POST",
      key: apiKey,
      body: { name: "Lee Park", phoneNumber: "+12025550171", toEmailAddress: "Lee@Example.org", company_name: "Beta", timezone: "America/New_York" },
    });
    const { sequenceId } = enrolled.body.sequence;
    await settleAll();
    const calls = await callsOf(db, sequenceId);
    expect(calls.map((c) => [c.stepNumber, c.resultType])).toEqual([
      [1, "Goal Not Completed"],
      [4, "Scheduled"],
    ]);

    const reply = await twilio!.simulator.messaging.receive({ from: "+12025550171", to: agent.phoneNumbers[0]!, body: " stop ", url: `${PUBLIC_BASE_URL}/api/twilio/messages/inbound` });
    expect(reply.status).toBe(200);
    // One answer: Twilio's own (its default opt-out handling); the app does not answer a keyword Twilio answered.
    expect(reply.replies.map((m) => [m.source, m.status, m.body])).toEqual([["opt-out-handling", "delivered", STOP_CONFIRMATION]]);
    const [suppressed] = await db.select().from(optOuts).where(and(eq(optOuts.organizationId, organization.id), eq(optOuts.phoneNumber, "+12025550171")));
    expect(suppressed).toMatchObject({ source: "sms" });
    const after = await callsOf(db, sequenceId);
    expect(after[1]).toMatchObject({ stepNumber: 4, resultType: "Cancelled", summary: "Skipped: the contact opted out by SMS." });
    expect((await sequenceOf(db, sequenceId)).lifecycleStatus).toBe("done");
    const replies = (await messagesOf(db, sequenceId)).filter((m) => m.direction === "inbound");
    expect(replies).toEqual([expect.objectContaining({ channel: "sms", status: "received", body: " stop ", fromAddress: "+12025550171" })]);
    await engine!.advance(2 * DAY);
    expect(engine!.simulator.dialCount(after[1]!.id)).toBe(0);

    // The email's one-click unsubscribe (RFC 8058 POST) suppresses the address for the organization.
    const mail = smtp.received.find((m) => m.to.some((to) => to.toLowerCase() === "lee@example.org"));
    expect(mail, JSON.stringify(smtp.received.map((m) => m.to))).toBeDefined();
    const url = headerOf(mail!.raw, "List-Unsubscribe")!.slice(1, -1);
    const token = url.split("/").pop()!;
    const posted = await unsubscribeRoute(new Request(url, { method: "POST", body: "List-Unsubscribe=One-Click", headers: { "content-type": "application/x-www-form-urlencoded" } }), { params: Promise.resolve({ token }) });
    expect(posted.status).toBe(200);
    const [address] = await db.select().from(emailSuppressions).where(eq(emailSuppressions.organizationId, organization.id));
    expect(address).toMatchObject({ email: "lee@example.org", source: "unsubscribe" });
    const tampered = await unsubscribeRoute(new Request(url, { method: "POST" }), { params: Promise.resolve({ token: token.slice(0, -2) + "xx" }) });
    expect(tampered.status).toBe(404);
    const events = await api("/events", { key: apiKey });
    expect(events.body.events.map((e: { type: string }) => e.type)).toEqual(expect.arrayContaining(["sms.received", "email.unsubscribed"]));
  });
});
