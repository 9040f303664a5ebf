import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { and, eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { POST as unsubscribeRoute } from "@/app/api/unsubscribe/[token]/route";
import { calls, sequenceMessages } from "@/db/schema";
import { failInterruptedSends, INTERRUPTED_SEND_MS } from "@/server/services/messaging/due-messages";
import { receiveSms } from "@/server/services/messaging/receive-sms";
import { finalizeCall } from "@/server/services/call-engine/finalize-call";
import { getSequenceView } from "@/server/services/conversations/get-sequence-view";
import { createTestAgent, createTestCall, createTestOrganization, createTestSequence, testPoolNumbers } from "../../factories";
import { apiClient } from "../../helpers/api";
import { useTestDb } from "../../helpers/db";
import { AGENT_DEFINITIONS, callStep, callsOf, sequenceOf, startCallEngine, type CallEngineHarness } from "../call-engine/harness";
import { headerOf, messageFunctions, messagesOf, messageStep, PUBLIC_BASE_URL, startTestSmtpServer, startTwilioForMessages } from "./helpers";

/**
 * Issue 34, item 1: an opt-out (an SMS STOP, an email unsubscribe) ends the contact's sequences with EVERY step not
 * started yet recorded as skipped — the steps the runner had not created yet too (it creates a step only when the one
 * before ends) — in the metadata, the console's sequence page and the events feed; and nothing is recorded twice when
 * a step in flight ends afterwards.
 */
const db = useTestDb();
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
let smtp: Awaited<ReturnType<typeof startTestSmtpServer>>;
let twilio: Awaited<ReturnType<typeof startTwilioForMessages>> | null = null;
let engine: CallEngineHarness | null = null;

beforeAll(async () => {
  process.env.DATA_DIR = mkdtempSync(path.join(os.tmpdir(), "opt-out-steps-"));
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

const EMAIL = messageStep("EMAIL", { subject: "Next steps for {{company_name}}", body: "Hi {{first_name}}, thanks for the call." });
const SMS = messageStep("SMS", { body: "Hi {{first_name}}, {{agent_name}} here. Reply STOP to opt out." });
const later = <T extends object>(step: T, seconds: number): T => ({ ...step, delaySeconds: seconds });

// Numbers of this file only (receiveSms finds the contact's sequence by number; test files share the database).
/** The agent's number of the test under way (Boston, as the contacts are). */
let ourNumber = "";

async function start(steps: ReturnType<typeof callStep>[], contact: string) {
  engine = await startCallEngine(db, {
    start: new Date(),
    extraFunctions: (context) => messageFunctions({ db, smtpUrl: smtp.url, messaging: () => twilio!.messaging })(context),
  });
  twilio = await startTwilioForMessages(db, engine.clock);
  const { organization, apiKey } = await createTestOrganization(db, { monthlyCreditAllocation: 10_000 });
  [ourNumber] = (await testPoolNumbers(db, organization.id, ["617"])) as [string];
  const agent = await createTestAgent(db, organization.id, { name: "Ava", phoneNumbers: [ourNumber], steps, ...AGENT_DEFINITIONS });
  engine.watchdogScope.push(organization.id);
  const api = apiClient(db, { now: engine.clock.now });
  // …1: the simulated contact says "not now" (Goal Not Completed): the sequence goes on.
  expect(contact.endsWith("1")).toBe(true);
  const enrolled = await api(`/agents/${agent.id}/schedule/sequence`, {
    method: "POST",
    key: apiKey,
    body: { name: "Lee Park", phoneNumber: contact, toEmailAddress: `${contact.slice(1)}@example.org`, company_name: "Beta", timezone: "America/New_York" },
  });
  expect(enrolled.status, JSON.stringify(enrolled.body)).toBe(201);
  await settleAll();
  return { organization, apiKey, agent, api, sequenceId: enrolled.body.sequence.sequenceId as string };
}

async function settleAll() {
  for (let round = 0; round < 5; round += 1) {
    await engine!.settle();
    await twilio!.simulator.messaging.idle();
  }
  await engine!.settle();
}

async function stepRecords(sequenceId: string) {
  const callRows = await callsOf(db, sequenceId);
  const messageRows = await messagesOf(db, sequenceId);
  return {
    calls: callRows.map((call) => [call.stepNumber, call.resultType, call.summary.startsWith("Skipped") ? call.summary : "…"]),
    messages: messageRows.map((message) => [message.stepNumber, message.channel, message.direction, message.status, message.error]),
  };
}

describe("an opt-out records every step not started yet", () => {
  it("STOP after the SMS: the EMAIL due later, the SMS and the CALL after it (not created yet) are all recorded skipped — metadata, console, feed — and the runner sends nothing later", async () => {
    // CALL → SMS → EMAIL an hour later → SMS → CALL.
    const contact = "+16175550141";
    const { organization, apiKey, api, sequenceId } = await start([callStep(), SMS, later(EMAIL, 3600), SMS, callStep()], contact);
    expect((await stepRecords(sequenceId)).messages).toEqual([
      [2, "sms", "outbound", "delivered", null],
      [3, "email", "outbound", "scheduled", null],
    ]);

    const stop = await twilio!.simulator.messaging.receive({ from: contact, to: ourNumber, body: "STOP", url: `${PUBLIC_BASE_URL}/api/twilio/messages/inbound` });
    expect(stop.status).toBe(200);
    const skipped = "Skipped: the contact opted out by SMS.";
    const recorded = await stepRecords(sequenceId);
    expect(recorded.calls).toEqual([
      [1, "Goal Not Completed", "…"],
      [5, "Cancelled", skipped],
    ]);
    expect(recorded.messages).toEqual([
      [2, "sms", "outbound", "delivered", null],
      [3, "email", "outbound", "skipped", skipped],
      [4, "sms", "outbound", "skipped", skipped],
      [null, "sms", "inbound", "received", null],
    ]);
    expect((await sequenceOf(db, sequenceId)).lifecycleStatus).toBe("done");

    // The metadata (GET /conversations/metadata): the skipped CALL among the calls, every skipped message.
    const metadata = await api(`/conversations/metadata/${sequenceId}`, { key: apiKey });
    expect(metadata.status).toBe(200);
    expect(metadata.body.metadata.map((call: { callResult: { resultType: string; summary: string } }) => [call.callResult.resultType, call.callResult.summary === skipped])).toEqual([
      ["Goal Not Completed", false],
      ["Cancelled", true],
    ]);
    expect(metadata.body.messages.filter((m: { direction: string }) => m.direction === "outbound").map((m: { stepNumber: number; status: string; error: string }) => [m.stepNumber, m.status, m.error])).toEqual([
      [2, "delivered", null],
      [3, "skipped", skipped],
      [4, "skipped", skipped],
    ]);
    // The console's sequence page: every step has its state, none is left "to come".
    const view = await getSequenceView(db, { organizationId: organization.id, sequenceId });
    expect(view.steps.map((step) => [step.stepNumber, step.stepType, step.state])).toEqual([
      [1, "CALL", "done"],
      [2, "SMS", "done"],
      [3, "EMAIL", "cancelled"],
      [4, "SMS", "cancelled"],
      [5, "CALL", "cancelled"],
    ]);
    expect(view.messages.filter((m) => m.status === "skipped").map((m) => m.stepNumber)).toEqual([3, 4]);
    // The events feed: the STOP, then each skipped message once.
    const events = await api("/events?limit=500", { key: apiKey });
    const feed = events.body.events.filter((event: { type: string }) => event.type.endsWith(".skipped") || event.type === "sms.received");
    expect(feed.map((event: { type: string; data: { stepNumber: number | null; error: string | null } }) => [event.type, event.data.stepNumber, event.data.error])).toEqual([
      ["sms.received", null, null],
      ["email.skipped", 3, skipped],
      ["sms.skipped", 4, skipped],
    ]);

    // Days later: nothing was sent, dialed or recorded again.
    const sentBefore = twilio!.simulator.messaging.messages.size;
    await engine!.advance(2 * DAY);
    await settleAll();
    expect(await stepRecords(sequenceId)).toEqual(recorded);
    expect(twilio!.simulator.messaging.messages.size).toBe(sentBefore);
    expect(smtp.received.filter((mail) => mail.to.includes("16175550141@example.org"))).toHaveLength(0);
  });

  it("an unsubscribe after the EMAIL: the SMS due later, the CALL and the SMS after it are recorded skipped with the reason", async () => {
    // CALL → EMAIL → SMS an hour later → CALL → SMS.
    const { apiKey, api, sequenceId } = await start([callStep(), EMAIL, later(SMS, 3600), callStep(), SMS], "+16175550151");
    const mail = smtp.received.find((m) => m.to.includes("16175550151@example.org"));
    expect(mail).toBeDefined();
    const url = headerOf(mail!.raw, "List-Unsubscribe")!.slice(1, -1);
    const posted = await unsubscribeRoute(new Request(url, { method: "POST", body: "List-Unsubscribe=One-Click", headers: { "content-type": "application/x-www-form-urlencoded" } }), {
      params: Promise.resolve({ token: url.split("/").pop()! }),
    });
    expect(posted.status).toBe(200);

    const skipped = "Skipped: the contact unsubscribed from emails.";
    const recorded = await stepRecords(sequenceId);
    expect(recorded.calls).toEqual([
      [1, "Goal Not Completed", "…"],
      [4, "Cancelled", skipped],
    ]);
    expect(recorded.messages).toEqual([
      [2, "email", "outbound", "sent", null],
      [3, "sms", "outbound", "skipped", skipped],
      [5, "sms", "outbound", "skipped", skipped],
    ]);
    const events = await api("/events?limit=500", { key: apiKey });
    expect(events.body.events.map((event: { type: string }) => event.type).filter((type: string) => type.startsWith("email.un") || type.endsWith(".skipped"))).toEqual([
      "email.unsubscribed",
      "sms.skipped",
      "sms.skipped",
    ]);
    await engine!.advance(2 * DAY);
    await settleAll();
    expect(await stepRecords(sequenceId)).toEqual(recorded);
    expect(twilio!.simulator.messaging.messages.size).toBe(0);
  });
});

describe("steps in flight at the opt-out", () => {
  it("a call being analysed and an SMS being sent finish without the runner recording a step twice", async () => {
    const { organization } = await createTestOrganization(db);
    const [ourNumber] = (await testPoolNumbers(db, organization.id, ["617"])) as [string];
    const agent = await createTestAgent(db, organization.id, { phoneNumbers: [ourNumber], steps: [callStep(), SMS, callStep()], ...AGENT_DEFINITIONS });
    const now = new Date();
    const base = { organizationId: organization.id, agentId: agent.id, phoneNumber: "+16175550189", steps: [callStep(), SMS, callStep()] };

    // A: its first call is being analysed when the contact texts STOP.
    const analysing = await createTestSequence(db, base);
    const call = await createTestCall(db, { organizationId: organization.id, agentId: agent.id, sequenceId: analysing.id, scheduledAt: now, resultType: "Processing Analysis", dialedAt: now });
    // B: the same contact's other sequence, its SMS step being sent at that moment.
    const sending = await createTestSequence(db, base);
    await createTestCall(db, { organizationId: organization.id, agentId: agent.id, sequenceId: sending.id, scheduledAt: now, resultType: "Goal Not Completed" });
    await db.insert(sequenceMessages).values({ id: `message.in-flight-${sending.id}`, organizationId: organization.id, agentId: agent.id, sequenceId: sending.id, stepNumber: 2, channel: "sms", status: "sending", scheduledAt: now, toAddress: base.phoneNumber, updatedAt: now });

    const outcome = await receiveSms(db, { from: base.phoneNumber, to: ourNumber, body: "Stop", providerMessageId: `SM${randomBytes(16).toString("hex")}`, optOutHandling: "twilio-default", now });
    expect(outcome.endedSequenceIds.sort()).toEqual([analysing.id, sending.id].sort());

    // The call's result arrives, the interrupted send is swept: neither moves the ended sequence on.
    const finalized = await finalizeCall(db, { callId: call.id, now, analysis: { resultType: "Goal Not Completed", summary: "Not now.", extractedVariables: {}, outcomes: [], agentActions: [], humanActions: [] } });
    expect(finalized).toMatchObject({ finalized: true, lifecycleStatus: "done", nextCall: null, nextMessage: null });
    await failInterruptedSends(db, { now: new Date(now.getTime() + INTERRUPTED_SEND_MS + 1000), organizationIds: [organization.id] });

    const skipped = "Skipped: the contact opted out by SMS.";
    const stepsOf = async (sequenceId: string) => ({
      calls: (await db.select().from(calls).where(eq(calls.sequenceId, sequenceId)).orderBy(calls.stepNumber)).map((row) => [row.stepNumber, row.resultType, row.summary]),
      messages: (await db.select().from(sequenceMessages).where(and(eq(sequenceMessages.sequenceId, sequenceId), eq(sequenceMessages.direction, "outbound"))).orderBy(sequenceMessages.stepNumber)).map((row) => [row.stepNumber, row.status]),
    });
    expect(await stepsOf(analysing.id)).toEqual({
      calls: [
        [1, "Goal Not Completed", "Not now."],
        [3, "Cancelled", skipped],
      ],
      messages: [[2, "skipped"]],
    });
    expect(await stepsOf(sending.id)).toEqual({
      calls: [
        [1, "Goal Not Completed", ""],
        [3, "Cancelled", skipped],
      ],
      messages: [[2, "failed"]],
    });
  });
});
