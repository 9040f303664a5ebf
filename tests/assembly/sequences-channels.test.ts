/**
 * Issue 27, done-when 1, on the production assembly: the built app behind `npm start` with VOICE_ENGINE=twilio-realtime
 * (the project's Twilio and OpenAI simulators in this process, reached through a "tunnel" from PUBLIC_BASE_URL), a real
 * SMTP server in this process (SMTP_URL), driven over HTTP only: /api/v1 for enrollment and results, the console's
 * /api/trpc for the agent, Twilio's signed webhooks for SMS replies and the callback. Issue 34: an opt-out records
 * every later step (items 1), and STOP, START and HELP get exactly one answer with Twilio's own keyword handling,
 * which the simulator models (item 7).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SMTPServer } from "smtp-server";
import type { AddressInfo } from "node:net";
import type { OpenAiSimulator } from "@/server/simulators/openai-realtime";
import type { TwilioSimulator } from "@/server/simulators/twilio";
import { draftFromView } from "@/app/(dashboard)/[orgId]/agents/_components/agent-draft";
import { type BuiltApp, type ConsoleSession, listenForWebhooks, signIn, startVoiceApp, VOICE_PUBLIC_BASE_URL, waitFor, type WebhookListener } from "./harness";

const PUBLIC_BASE_URL = VOICE_PUBLIC_BASE_URL;
const POOL = ["+13125550100", "+12025550100"];
const ALWAYS = { dayOffset: 0, timeWindow: { startTime: 0, endTime: 1440 }, timezoneSource: "contact" as const };
const STEPS = [
  { stepType: "CALL" as const, delaySeconds: 0, delaySecondsMax: null, executionWindowConfig: ALWAYS },
  {
    stepType: "EMAIL" as const,
    delaySeconds: 0,
    delaySecondsMax: null,
    executionWindowConfig: ALWAYS,
    subject: "Next steps with {{agent_name}} for {{company_name}}",
    body: "Hi {{first_name}},\n\nThanks for the call about {{company_name}} ({{crm_ref}}).\n\nYour meeting: {{meeting_time}}\nJoin: {{meeting_link}}\n\nBest,\n{{agent_name}}",
  },
  { stepType: "SMS" as const, delaySeconds: 0, delaySecondsMax: null, executionWindowConfig: ALWAYS, body: "Hi {{first_name}}, {{agent_name}} here about {{company_name}}. Reply STOP to opt out." },
  { stepType: "CALL" as const, delaySeconds: 3600, delaySecondsMax: null, executionWindowConfig: ALWAYS },
];

// Issue 34: CALL → SMS → EMAIL an hour later → SMS → CALL, the contact texts STOP after the first SMS.
const STEPS_WITH_LATER_STEPS = [
  STEPS[0]!,
  { ...STEPS[2]!, body: "Hi {{first_name}}, {{agent_name}} here. Reply STOP to opt out." },
  { ...STEPS[1]!, delaySeconds: 3600 },
  STEPS[2]!,
  { ...STEPS[0]!, delaySeconds: 0 },
];

type Mail = { to: string[]; raw: string };

let app: BuiltApp;
let twilio: TwilioSimulator;
let openai: OpenAiSimulator;
let webhooks: WebhookListener;
let smtp: SMTPServer;
let session: ConsoleSession;
let agentId: string;
const mails: Mail[] = [];

function header(raw: string, name: string): string | null {
  const head = raw.split(/\r?\n\r?\n/)[0]!.replace(/\r?\n[ \t]+/g, " ");
  const line = head.split(/\r?\n/).find((candidate) => candidate.toLowerCase().startsWith(`${name.toLowerCase()}:`));
  return line ? line.slice(name.length + 1).trim() : null;
}

function textPart(raw: string): string {
  const match = /Content-Type: text\/plain[^\n]*\r?\n(?:Content-Transfer-Encoding: ([^\r\n]+)\r?\n)?\r?\n([\s\S]*?)\r?\n--/i.exec(raw);
  const body = match?.[2] ?? "";
  if (match?.[1]?.toLowerCase() !== "quoted-printable") return body;
  return Buffer.from(body.replace(/=\r?\n/g, "").replace(/=([0-9A-F]{2})/g, (_all, hex: string) => String.fromCharCode(parseInt(hex, 16))), "latin1").toString("utf8");
}

const toApp = (url: string) => url.replace(PUBLIC_BASE_URL, app.origin);

async function createAgent(name: string, steps: readonly unknown[]): Promise<string> {
  // The demo link agent's definitions and calendar, new steps and pool.
  const linkAgentId = app.primary.agents.find((agent) => agent.role === "link")!.agentId;
  const view = await session.trpc("agents.getConfig", { agentId: linkAgentId }, { method: "GET" });
  expect(view.status, JSON.stringify(view.body)).toBe(200);
  const draft = draftFromView(view.body.result.data);
  const created = await session.trpc("agents.create", {
    ...draft,
    name,
    phoneNumbers: POOL,
    steps,
    inputVariables: draft.inputVariables.map(({ id: _id, ...variable }) => variable),
    extractedVariables: draft.extractedVariables.map(({ id: _id, ...variable }) => variable),
    outcomes: draft.outcomes.map(({ id: _id, ...outcome }) => outcome),
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  return created.body.result.data.agentId;
}

/** Every message sent back to a person who texted us, as [who sent it (Twilio's keyword handling or our TwiML), status]. */
function answersTo(received: { replies: Array<{ source: string | null; status: string; errorCode: number | null; body: string }> }) {
  return received.replies.map((reply) => [reply.source, reply.status === "failed" ? `failed ${reply.errorCode}` : reply.status, reply.body]);
}

async function enroll(body: Record<string, unknown>, agent = agentId): Promise<string> {
  const res = await app.api(`/agents/${agent}/schedule/sequence`, { body: { timezone: "America/New_York", crm_ref: "CRM-27", ...body } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.sequence.sequenceId as string;
}

async function metadata(sequenceId: string) {
  const res = await app.api(`/conversations/metadata/${sequenceId}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { metadata: Array<Record<string, any>>; messages: Array<Record<string, any>> };
}

function explain() {
  return {
    calls: [...twilio.calls.values()].map((call) => ({ direction: call.direction, from: call.from, to: call.to, status: call.status, said: call.said, events: call.events.slice(0, 20) })),
    messages: [...twilio.messaging.messages.values()].map((m) => [m.from, m.to, m.status, m.body]),
    mails: mails.map((m) => m.to),
    webhooks: webhooks.payloads().map((p) => [p.sequence?.sequenceId, p.direction, p.callResult?.resultType]),
    log: app.logs().filter((line) => line.level === "warn" || line.level === "error" || line.level === 40 || line.level === 50).slice(-20),
  };
}

async function waitForSequence(sequenceId: string, label: string, done: (body: Awaited<ReturnType<typeof metadata>>) => boolean) {
  return waitFor(
    async () => {
      const body = await metadata(sequenceId);
      return done(body) ? body : null;
    },
    { timeoutMs: 150_000, label, explain },
  );
}

beforeAll(async () => {
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onData(stream, envelope, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        mails.push({ to: envelope.envelope.rcptTo.map((rcpt) => rcpt.address), raw: Buffer.concat(chunks).toString("utf8") });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, "127.0.0.1", resolve));
  const smtpPort = (smtp.server.address() as AddressInfo).port;

  ({ app, twilio, openai } = await startVoiceApp({
    twilioSpeed: 4,
    env: {
        SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
        MAIL_FROM: "Acme Follow-ups <follow-ups@acme.example>",
    },
  }));
  webhooks = await listenForWebhooks(app);
  const admin = app.demo.dashboard.users.find((user) => user.role === "admin")!;
  session = await signIn(app, admin, app.primary.orgId);
  // The pool's numbers, bought through /api/v1 from the carrier (the Twilio simulator's inventory): a pool holds only
  // the organization's own numbers (docs/numbers.md).
  for (const phoneNumber of POOL) {
    const bought = await app.api("/numbers", { body: { phoneNumber } });
    expect(bought.status, JSON.stringify(bought.body)).toBe(201);
  }
  // The four-step agent, created in the console.
  agentId = await createAgent("Ava", STEPS);
}, 300_000);

afterAll(async () => {
  await app?.stop();
  await twilio?.stop();
  await openai?.stop();
  await webhooks?.close();
  await new Promise<void>((resolve) => (smtp ? smtp.close(() => resolve()) : resolve()));
});

describe("CALL → EMAIL → SMS → CALL on the built app (twilio-realtime, real SMTP), and a callback", () => {
  it("emails with the meeting link and one-click unsubscribe, texts from the closest number, STOP and unsubscribe suppress, the sequence ends done, the contact's callback reaches the agent", async () => {
    // Jane (…0: books a meeting) and Lee (…1: not now), both in the 202 area: texted from +1 202 555 0100.
    const jane = await enroll({ name: "Jane Doe", phoneNumber: "+12025550170", toEmailAddress: "jane@example.org", company_name: "Acme Corp" });
    const lee = await enroll({ name: "Lee Park", phoneNumber: "+12025550171", toEmailAddress: "lee@example.org", company_name: "Beta LLC" });

    // Jane: the call booked a meeting (Goal Completed), the email and the SMS went out, the last CALL is skipped.
    const janeDone = await waitForSequence(jane, "Jane's sequence done", (body) => body.metadata[0]?.sequence.lifecycleStatus === "done" && body.messages.some((m) => m.channel === "sms" && m.status === "delivered"));
    const janeCall = janeDone.metadata.find((call) => call.direction === "outbound" && call.callResult.resultType !== "Cancelled")!;
    expect(janeCall.callResult.resultType).toBe("Goal Completed");
    const meeting = janeCall.callResult.followUpMeetingDetails;
    expect(meeting?.meetingLink, JSON.stringify(janeCall)).toMatch(/^https?:\/\//);
    expect(janeDone.metadata.map((call) => [call.attempt, call.callResult.resultType])).toEqual([
      [1, "Goal Completed"],
      [1, "Cancelled"],
    ]);
    expect(janeDone.metadata[1]!.callResult.summary).toBe("Skipped: the goal was completed in an earlier call.");

    // The email at the SMTP server: rendered, with the first call's meeting link and valid RFC 8058 headers.
    const janeMail = await waitFor(() => mails.find((mail) => mail.to.includes("jane@example.org")), { label: "Jane's email at the SMTP server", explain });
    expect(header(janeMail.raw, "Subject")).toBe("Next steps with Ava for Acme Corp");
    expect(header(janeMail.raw, "From")).toContain("follow-ups@acme.example");
    const text = textPart(janeMail.raw);
    expect(text).toContain("Hi Jane,");
    expect(text).toContain("Thanks for the call about Acme Corp (CRM-27).");
    expect(text).toContain(`Join: ${meeting.meetingLink}`);
    expect(text).toMatch(/Your meeting: \w+day, \w+ \d+ at \d+:\d\d [AP]M E[SD]T/);
    const listUnsubscribe = header(janeMail.raw, "List-Unsubscribe")!;
    expect(listUnsubscribe).toMatch(new RegExp(`^<${PUBLIC_BASE_URL}/api/unsubscribe/[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]{43}>$`));
    expect(header(janeMail.raw, "List-Unsubscribe-Post")).toBe("List-Unsubscribe=One-Click");

    // The SMS at the Twilio simulator, from the pool's closest number, delivered through signed status callbacks.
    const janeSms = [...twilio.messaging.messages.values()].find((message) => message.to === "+12025550170")!;
    expect(janeSms).toMatchObject({ from: "+12025550100", body: "Hi Jane, Ava here about Acme Corp. Reply STOP to opt out.", status: "delivered" });
    // The simulator marks the message delivered as it posts the callback: wait for the app's answer to both posts.
    const statusCallbacks = await waitFor(
      () => {
        const posted = twilio.messaging.callbacks.filter((callback) => callback.kind === "message-status" && callback.params.MessageSid === janeSms.sid);
        return posted.length === 2 && posted.every((callback) => callback.status !== null) ? posted : null;
      },
      { timeoutMs: 30_000, label: "the app's answers to the SMS status callbacks" },
    );
    expect(statusCallbacks.map((callback) => [callback.params.MessageStatus, callback.status])).toEqual([
      ["sent", 200],
      ["delivered", 200],
    ]);
    expect(statusCallbacks[0]!.url.startsWith(`${PUBLIC_BASE_URL}/api/carriers/twilio/messages/status?messageId=`)).toBe(true);
    expect(statusCallbacks[0]!.signature).toMatch(/^[A-Za-z0-9+/]+=*$/);
    expect(janeDone.messages.filter((m) => m.direction === "outbound").map((m) => [m.stepNumber, m.channel, m.status])).toEqual([
      [2, "email", "sent"],
      [3, "sms", "delivered"],
    ]);

    // Lee: not now → the email and the SMS; the last CALL waits an hour. A STOP reply suppresses the number at once.
    await waitForSequence(lee, "Lee's SMS delivered", (body) => body.messages.some((m) => m.channel === "sms" && m.status === "delivered"));
    const stop = await twilio.messaging.receive({ from: "+12025550171", to: "+12025550100", body: "STOP", url: `${PUBLIC_BASE_URL}/api/twilio/messages/inbound` });
    expect(stop.status).toBe(200);
    // One answer, Twilio's own (its default opt-out handling): ours would be refused with 21610 (issue 34, item 7).
    expect(answersTo(stop)).toEqual([["opt-out-handling", "delivered", "You have successfully been unsubscribed. You will not receive any more messages from this number. Reply START to resubscribe."]]);
    const leeDone = await metadata(lee);
    expect(leeDone.metadata.map((call) => [call.callResult.resultType, call.callResult.summary.startsWith("Skipped") ? call.callResult.summary : "…"])).toEqual([
      ["Goal Not Completed", "…"],
      ["Cancelled", "Skipped: the contact opted out by SMS."],
    ]);
    expect(leeDone.metadata[0]!.sequence.lifecycleStatus).toBe("done");
    expect(leeDone.messages.find((m) => m.direction === "inbound")).toMatchObject({ channel: "sms", status: "received", body: "STOP" });
    const again = await app.api(`/agents/${agentId}/schedule/sequence`, { body: { name: "Lee Park", phoneNumber: "+12025550171", company_name: "Beta LLC", toEmailAddress: "lee@example.org" } });
    expect(again.status).toBe(409);
    expect(again.body.error).toBe("OPTED_OUT");

    // Lee's email: the one-click unsubscribe (the POST mail clients send) suppresses the address; a tampered link 404.
    const leeMail = await waitFor(() => mails.find((mail) => mail.to.includes("lee@example.org")), { label: "Lee's email", explain });
    const unsubscribeUrl = header(leeMail.raw, "List-Unsubscribe")!.slice(1, -1);
    const tampered = await fetch(toApp(unsubscribeUrl.slice(0, -2) + (unsubscribeUrl.endsWith("xx") ? "yy" : "xx")), { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "List-Unsubscribe=One-Click" });
    expect(tampered.status).toBe(404);
    const unsubscribed = await fetch(toApp(unsubscribeUrl), { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "List-Unsubscribe=One-Click" });
    expect(unsubscribed.status).toBe(200);
    const events = await app.api(`/events?agentId=${encodeURIComponent(agentId)}&limit=500`);
    expect(events.status).toBe(200);
    const unsubscribedEvent = events.body.events.find((event: { type: string }) => event.type === "email.unsubscribed");
    expect(unsubscribedEvent?.data, JSON.stringify(events.body.events.map((event: { type: string }) => event.type))).toMatchObject({ to: "lee@example.org", sequenceId: lee });
    expect(events.body.events.map((event: { type: string }) => event.type)).toEqual(expect.arrayContaining(["email.sent", "sms.sent", "sms.delivered", "sms.received", "email.unsubscribed"]));
    // The address is suppressed: a new contact with it gets no email (the step is skipped and recorded as such).
    const sam = await enroll({ name: "Sam Lee", phoneNumber: "+12025550178", toEmailAddress: "LEE@example.org", company_name: "Gamma" });
    const samDone = await waitForSequence(sam, "Sam's sequence done", (body) => body.metadata[0]?.sequence.lifecycleStatus === "done");
    expect(samDone.messages.find((m) => m.channel === "email")).toMatchObject({ status: "skipped" });
    expect(mails.filter((mail) => mail.to.some((to) => to.toLowerCase() === "lee@example.org"))).toHaveLength(1);

    // Jane calls the number back: the agent that called her takes it, greets her by name, the call is recorded on
    // her sequence and its result webhook says `direction: "inbound"`.
    const unsigned = await fetch(`${app.origin}/api/twilio/voice/inbound`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: `CallSid=CA${"1".repeat(32)}&From=%2B12025550170&To=%2B12025550100` });
    expect(unsigned.status).toBe(403);
    const sessionsBefore = openai.sessions.length;
    const callback = twilio.callFrom({ from: "+12025550170", to: "+12025550100", url: `${PUBLIC_BASE_URL}/api/twilio/voice/inbound`, statusCallback: `${PUBLIC_BASE_URL}/api/twilio/voice/status`, lines: ["callee.not-now"] });
    const inbound = await waitFor(() => webhooks.payloads().find((payload) => payload.sequence?.sequenceId === jane && payload.direction === "inbound"), { timeoutMs: 120_000, label: "the callback's call-result webhook", explain });
    const twimlFetch = twilio.callbacks.find((entry) => entry.kind === "twiml" && entry.params.CallSid === callback.sid)!;
    expect(twimlFetch).toMatchObject({ status: 200, params: { Direction: "inbound", From: "+12025550170", To: "+12025550100" } });
    // The identification first (the callback wording: nobody is "calling on behalf of"), then the agent greets her by name.
    const agentLines = String(inbound.callResult.transcription).split("\n").filter((line) => line.startsWith("Agent:"));
    expect(agentLines[0], inbound.callResult.transcription).toMatch(/you have reached an automated AI assistant of/);
    expect(agentLines[1], inbound.callResult.transcription).toContain("Jane");
    // Transcribed, its audio not kept: the audit trail says so (a notice, where one is due, would say the same).
    expect(inbound.disclosures.recording.state).toBe("not-recorded");
    expect(inbound).toMatchObject({ direction: "inbound", fromPhoneNumber: "+12025550100", phoneNumber: "+12025550170", agentId, sequence: { sequenceId: jane, lifecycleStatus: "done" } });
    expect(inbound.callResult.transcription).toContain("Not right now");
    // The model's instructions carried the sequence's context: the input variables and the last call's summary.
    const realtime = openai.sessions.slice(sessionsBefore).find((record) => record.instructions.includes("calling you back"))!;
    expect(realtime.instructions).toContain("company_name: Acme Corp");
    expect(realtime.instructions).toContain(janeCall.callResult.summary);
    // Recorded on her sequence beside the outbound calls (step 0), charged like a call; the sequence did not move.
    const after = await metadata(jane);
    expect(after.metadata.map((call) => [call.direction, call.callResult.resultType])).toEqual(
      expect.arrayContaining([
        ["outbound", "Goal Completed"],
        ["inbound", inbound.callResult.resultType],
      ]),
    );
    expect(after.metadata).toHaveLength(3);
    expect(twilio.callFromNumber("+12025550170")?.status).toBe("completed");
  });

  it("issue 34: a STOP records every step not started (the ones not created yet too) in the metadata, the console and the feed; STOP, START and HELP get exactly one answer each", async () => {
    const benId = await createAgent("Ben", STEPS_WITH_LATER_STEPS);
    // Kim (…1: not now): the call, the SMS; the EMAIL waits an hour, the SMS and the CALL after it do not exist yet.
    const kim = await enroll({ name: "Kim Lo", phoneNumber: "+12025550161", toEmailAddress: "kim@example.org", company_name: "Delta" }, benId);
    await waitForSequence(kim, "Kim's SMS delivered and the EMAIL scheduled", (body) => body.messages.some((m) => m.channel === "sms" && m.status === "delivered") && body.messages.some((m) => m.channel === "email" && m.status === "scheduled"));

    const inbound = `${PUBLIC_BASE_URL}/api/twilio/messages/inbound`;
    const stop = await twilio.messaging.receive({ from: "+12025550161", to: "+12025550100", body: "STOP", url: inbound });
    expect(stop.status).toBe(200);
    expect(answersTo(stop)).toEqual([["opt-out-handling", "delivered", "You have successfully been unsubscribed. You will not receive any more messages from this number. Reply START to resubscribe."]]);

    // Item 1: every step after the SMS is recorded, with the reason, and the sequence is done.
    const skipped = "Skipped: the contact opted out by SMS.";
    const after = await metadata(kim);
    expect(after.metadata[0]!.sequence.lifecycleStatus).toBe("done");
    expect(after.metadata.map((call) => [call.callResult.resultType, call.callResult.summary === skipped])).toEqual([
      ["Goal Not Completed", false],
      ["Cancelled", true],
    ]);
    expect(after.messages.map((m) => [m.direction, m.stepNumber, m.channel, m.status, m.error])).toEqual(
      expect.arrayContaining([
        ["outbound", 2, "sms", "delivered", null],
        ["outbound", 3, "email", "skipped", skipped],
        ["outbound", 4, "sms", "skipped", skipped],
        ["inbound", null, "sms", "received", null],
      ]),
    );
    expect(after.messages).toHaveLength(4);
    const view = await session.trpc("conversations.sequenceView", { sequenceId: kim }, { method: "GET" });
    expect(view.status, JSON.stringify(view.body)).toBe(200);
    expect(view.body.result.data.steps.map((step: { stepNumber: number; state: string }) => [step.stepNumber, step.state])).toEqual([
      [1, "done"],
      [2, "done"],
      [3, "cancelled"],
      [4, "cancelled"],
      [5, "cancelled"],
    ]);
    const events = await app.api(`/events?agentId=${encodeURIComponent(benId)}&limit=500`);
    expect(events.status).toBe(200);
    expect(events.body.events.filter((event: { type: string }) => event.type.endsWith(".skipped")).map((event: { type: string; data: { sequenceId: string; stepNumber: number } }) => [event.type, event.data.sequenceId, event.data.stepNumber])).toEqual([
      ["email.skipped", kim, 3],
      ["sms.skipped", kim, 4],
    ]);

    // Item 7: START and HELP, one answer each (Twilio's), not one from Twilio and one from us.
    const start = await twilio.messaging.receive({ from: "+12025550161", to: "+12025550100", body: "START", url: inbound });
    expect(answersTo(start)).toEqual([["opt-out-handling", "delivered", "You have successfully been re-subscribed to messages from this number. Reply HELP for help. Reply STOP to unsubscribe. Msg&Data Rates May Apply."]]);
    const help = await twilio.messaging.receive({ from: "+12025550161", to: "+12025550100", body: "HELP", url: inbound });
    expect(answersTo(help)).toHaveLength(1);
    expect(answersTo(help)[0]!.slice(0, 2)).toEqual(["opt-out-handling", "delivered"]);
  });
});
