import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { sequenceMessages, type AgentStep } from "@/db/schema";
import { appCodeOfError } from "@/server/errors";
import { handleTwilioMessagingWebhook } from "@/server/services/messaging/twilio-webhooks";
import { twilioSignature } from "@/server/simulators/twilio";
import { RETRY_SCHEDULE_MS } from "@/server/services/webhooks/retry-schedule";
import { createTestAgent, createTestOrganization, testPoolNumbers } from "../../factories";
import { apiClient } from "../../helpers/api";
import { useTestDb } from "../../helpers/db";
import { AGENT_DEFINITIONS, callStep, sequenceOf, startCallEngine, type CallEngineHarness } from "../call-engine/harness";
import { createOrgWithRoles } from "../dashboard/helpers";
import { messageFunctions, messagesOf, messageStep, PUBLIC_BASE_URL, startTestSmtpServer, startTwilioForMessages } from "./helpers";

const db = useTestDb();
let smtp: Awaited<ReturnType<typeof startTestSmtpServer>>;
let twilio: Awaited<ReturnType<typeof startTwilioForMessages>> | null = null;
let engine: CallEngineHarness | null = null;

beforeAll(async () => {
  process.env.DATA_DIR = mkdtempSync(path.join(os.tmpdir(), "sequence-bad-input-"));
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

const WINDOW = { dayOffset: 0, timeWindow: { startTime: 0, endTime: 1440 }, timezoneSource: "contact" as const };
function agentConfig(steps: Array<Record<string, unknown>>, phoneNumbers: string[]) {
  return {
    name: "Templates",
    status: "ACTIVE" as const,
    timezones: ["America/New_York"],
    phoneNumbers,
    steps: steps as never,
    prompt: "Prompt",
    bookingConfig: null,
    inputVariables: [{ slug: "company_name", displayName: "Company", description: "", required: true }],
    extractedVariables: [],
    outcomes: [],
  };
}

async function errorOf(promise: Promise<unknown>) {
  return promise.then(
    () => null,
    (error: unknown) => ({ code: appCodeOfError(error), message: error instanceof Error ? error.message : String(error) }),
  );
}

describe("templates are checked when the agent is saved", () => {
  it("refuses an unknown variable (naming it and the field), an SMS over 3 segments, an EMAIL without a subject; accepts known ones", async () => {
    const { as, organization } = await createOrgWithRoles(db);
    const pool = await testPoolNumbers(db, organization.id, ["202"]);
    const call = { stepType: "CALL", delaySeconds: 0, delaySecondsMax: null, executionWindowConfig: WINDOW };
    const unknown = await errorOf(as("admin").agents.create(agentConfig([call, { ...call, stepType: "EMAIL", subject: "Hi {{name}}", body: "About {{compnay_name}}" }], pool)));
    expect(unknown).toMatchObject({ code: "INVALID_REQUEST", message: expect.stringContaining("steps.1.body: unknown template variable {{compnay_name}}") });
    const long = await errorOf(as("admin").agents.create(agentConfig([call, { ...call, stepType: "SMS", body: "x".repeat(460) }], pool)));
    expect(long).toMatchObject({ code: "INVALID_REQUEST", message: expect.stringContaining("steps.1.body: the message takes 4 SMS segments") });
    const noSubject = await errorOf(as("admin").agents.create(agentConfig([call, { ...call, stepType: "EMAIL", body: "Hello" }], pool)));
    expect(noSubject).toMatchObject({ message: expect.stringContaining("steps.1.subject") });
    const ok = await as("admin").agents.create(
      agentConfig([call, { ...call, stepType: "EMAIL", subject: "{{agent_name}} × {{company_name}}", body: "{{last_call_summary}} {{meeting_link}}" }, { ...call, stepType: "SMS", body: "x".repeat(459) }], pool),
    );
    const saved = await as("admin").agents.getConfig({ agentId: ok.agentId });
    expect(saved.steps.map((step) => step.stepType)).toEqual(["CALL", "EMAIL", "SMS"]);
    expect(saved.steps[1]).toMatchObject({ subject: "{{agent_name}} × {{company_name}}" });
  });
});

describe("delivery problems", () => {
  async function startWith(steps: AgentStep[]) {
    engine = await startCallEngine(db, { start: new Date(), extraFunctions: messageFunctions({ db, smtpUrl: smtp.url, messaging: () => twilio!.messaging }) });
    twilio = await startTwilioForMessages(db, engine.clock);
    const { organization, apiKey } = await createTestOrganization(db, { monthlyCreditAllocation: 1_000 });
    const agent = await createTestAgent(db, organization.id, { name: "Ava", phoneNumbers: await testPoolNumbers(db, organization.id, ["202"]), steps, ...AGENT_DEFINITIONS });
    engine.watchdogScope.push(organization.id);
    const api = apiClient(db, { now: engine.clock.now });
    return { organization, apiKey, agent, api };
  }

  it("an SMTP outage fails the step with the reason and retries on the webhook schedule; the email then arrives once and the sequence ends done", async () => {
    const { apiKey, agent, api } = await startWith([messageStep("EMAIL", { subject: "Hello {{name}}", body: "Hi {{first_name}}" })]);
    smtp.state.refuse = true;
    const enrolled = await api(`/agents/${agent.id}/schedule/sequence`, {
      method: "POST",
      key: apiKey,
      body: { name: "Outage Person", phoneNumber: "+12025550141", toEmailAddress: "outage@example.org", company_name: "Acme" },
    });
    expect(enrolled.status).toBe(201);
    const { sequenceId } = enrolled.body.sequence;
    await engine!.settle();
    let [message] = await messagesOf(db, sequenceId);
    expect(message).toMatchObject({ status: "failed", attempts: 1, error: expect.stringMatching(/^SMTP: .*(421|not available)/i) });
    expect(message!.nextAttemptAt!.getTime() - engine!.clock.now().getTime()).toBe(RETRY_SCHEDULE_MS[0]);
    await engine!.advance(RETRY_SCHEDULE_MS[0]!);
    [message] = await messagesOf(db, sequenceId);
    expect(message).toMatchObject({ status: "failed", attempts: 2 });
    smtp.state.refuse = false;
    await engine!.advance(RETRY_SCHEDULE_MS[1]!);
    [message] = await messagesOf(db, sequenceId);
    expect(message).toMatchObject({ status: "sent", attempts: 3, error: null });
    expect(smtp.received.filter((m) => m.to.includes("outage@example.org"))).toHaveLength(1);
    await engine!.advance(RETRY_SCHEDULE_MS[2]! * 2);
    expect(smtp.received.filter((m) => m.to.includes("outage@example.org"))).toHaveLength(1);
    expect((await sequenceOf(db, sequenceId)).lifecycleStatus).toBe("done");
  });

  it("a mailbox the receiving server refuses (550) bounces at once: no retry, no charge, the sequence moves on", async () => {
    const { apiKey, agent, api } = await startWith([messageStep("EMAIL", { subject: "Hello {{name}}", body: "Hi {{first_name}}" })]);
    smtp.state.unknownMailboxes.add("nobody@example.org");
    const enrolled = await api(`/agents/${agent.id}/schedule/sequence`, {
      method: "POST",
      key: apiKey,
      body: { name: "Nobody Home", phoneNumber: "+12025550143", toEmailAddress: "nobody@example.org", company_name: "Acme" },
    });
    expect(enrolled.status).toBe(201);
    const { sequenceId } = enrolled.body.sequence;
    await engine!.settle();
    const [message] = await messagesOf(db, sequenceId);
    expect(message).toMatchObject({ status: "bounced", attempts: 1, errorCode: "550", nextAttemptAt: null, credits: 0, error: expect.stringMatching(/^SMTP: .*does not exist/) });
    await engine!.advance(RETRY_SCHEDULE_MS[0]! * 2);
    expect((await messagesOf(db, sequenceId))[0]).toMatchObject({ status: "bounced", attempts: 1 });
    expect(smtp.received.filter((m) => m.to.includes("nobody@example.org"))).toHaveLength(0);
    expect((await sequenceOf(db, sequenceId)).lifecycleStatus).toBe("done");
    const metadata = await api(`/conversations/metadata/${sequenceId}`, { key: apiKey });
    expect(JSON.stringify(metadata.body)).toContain('"bounced"');
  });

  it("unsigned or tampered Twilio callbacks get 403 and change nothing", async () => {
    const { apiKey, agent, api } = await startWith([messageStep("SMS", { body: "Hi {{first_name}}" }), callStep({ delaySeconds: 86_400 })]);
    const [ourNumber] = agent.phoneNumbers as [string];
    const enrolled = await api(`/agents/${agent.id}/schedule/sequence`, { method: "POST", key: apiKey, body: { name: "Sam Hill", phoneNumber: "+12025550142", company_name: "Acme" } });
    const { sequenceId } = enrolled.body.sequence;
    for (let round = 0; round < 3; round += 1) {
      await engine!.settle();
      await twilio!.simulator.messaging.idle();
    }
    const [sms] = await messagesOf(db, sequenceId);
    expect(sms).toMatchObject({ status: "delivered" });
    const handler = (request: Request) => handleTwilioMessagingWebhook(request, { db, now: engine!.clock.now, messaging: async () => twilio!.messaging });
    const inboundUrl = `${PUBLIC_BASE_URL}/api/twilio/messages/inbound`;
    const form = { AccountSid: twilio!.simulator.accountSid, From: "+12025550142", To: ourNumber, Body: "STOP", MessageSid: `SM${"a".repeat(32)}` };
    const post = (url: string, body: Record<string, string>, signature: string | null) =>
      handler(new Request(url, { method: "POST", body: new URLSearchParams(body).toString(), headers: { "content-type": "application/x-www-form-urlencoded", ...(signature ? { "x-twilio-signature": signature } : {}) } }));

    expect((await post(inboundUrl, form, null)).status).toBe(403);
    const signed = twilioSignature(twilio!.simulator.authToken, inboundUrl, form);
    expect((await post(inboundUrl, { ...form, Body: "START" }, signed)).status).toBe(403); // tampered body
    expect((await post(inboundUrl, form, twilioSignature("another-token", inboundUrl, form))).status).toBe(403);
    const statusUrl = `${PUBLIC_BASE_URL}/api/twilio/messages/status?messageId=${encodeURIComponent(sms!.id)}`;
    const failed = { MessageSid: sms!.providerMessageId!, MessageStatus: "failed", ErrorCode: "30008" };
    expect((await post(statusUrl, failed, twilioSignature(twilio!.simulator.authToken, `${PUBLIC_BASE_URL}/api/twilio/messages/status?messageId=other`, failed))).status).toBe(403);

    const [after] = await messagesOf(db, sequenceId);
    expect(after).toMatchObject({ status: "delivered", errorCode: null });
    expect((await messagesOf(db, sequenceId)).filter((m) => m.direction === "inbound")).toHaveLength(0);
    expect((await sequenceOf(db, sequenceId)).lifecycleStatus).toBe("in progress");
    // The same request correctly signed is accepted (the 403s were about the signature only).
    expect((await post(inboundUrl, form, signed)).status).toBe(200);
    expect((await sequenceOf(db, sequenceId)).lifecycleStatus).toBe("done");
    expect(await db.select().from(sequenceMessages).where(eq(sequenceMessages.providerMessageId, form.MessageSid))).toHaveLength(1);
  });
});
