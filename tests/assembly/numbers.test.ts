/**
 * Issue 35, done-when 1 and 3, on the production assembly: the built app behind `npm start` with its carrier account
 * on the project's Twilio simulator (in this process, reached through a "tunnel" from PUBLIC_BASE_URL), driven from
 * outside only: /api/v1 with each organization's key, the console's /api/trpc, and calls and texts placed to the
 * numbers through the simulated carrier, which routes them by each number's own webhooks as Twilio does.
 * Organization A is the demo's primary organization, B its secondary one (the demo admin belongs to both).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { OpenAiSimulator } from "@/server/simulators/openai-realtime";
import type { TwilioSimulator } from "@/server/simulators/twilio";
import { type BuiltApp, type ConsoleSession, type DemoOrganization, signIn, startVoiceApp, VOICE_PUBLIC_BASE_URL, waitFor } from "./harness";

let app: BuiltApp;
let twilio: TwilioSimulator;
let openai: OpenAiSimulator;
let a: DemoOrganization;
let b: DemoOrganization;
let consoleOfB: ConsoleSession;

/** A's number, bought in the first test. */
let ours = "";
let oursId = "";

const asA = (path: string, init: { method?: string; body?: unknown } = {}) => app.api(path, { ...init, key: a.apiKey });
const asB = (path: string, init: { method?: string; body?: unknown } = {}) => app.api(path, { ...init, key: b.apiKey });

async function listNumbers(org: DemoOrganization): Promise<Array<{ numberId: string; phoneNumber: string; status: string }>> {
  const res = await app.api("/numbers", { key: org.apiKey });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.numbers;
}

async function suppressed(org: DemoOrganization, phoneNumber: string): Promise<boolean> {
  const res = await app.api(`/suppressions?phoneNumber=${encodeURIComponent(phoneNumber)}`, { key: org.apiKey });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.suppressions.length > 0;
}

async function configOf(org: DemoOrganization, agentId: string) {
  const res = await app.api(`/agents/${agentId}/config`, { key: org.apiKey });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as Record<string, unknown> & { phoneNumbers: string[] };
}

beforeAll(async () => {
  ({ app, twilio, openai } = await startVoiceApp({ twilioSpeed: 4 }));
  a = app.primary;
  b = app.demo.organizations.find((organization) => organization.key === "secondary")!;
  const admin = app.demo.dashboard.users.find((user) => user.role === "admin")!;
  consoleOfB = await signIn(app, admin, b.orgId);
}, 300_000);

afterAll(async () => {
  await app?.stop();
  await twilio?.stop();
  await openai?.stop();
});

describe("numbers belong to one organization (built app, Twilio simulator)", () => {
  it("A buys a number: its webhooks point at this deployment; B can neither buy, claim nor validate it (409), and nothing is written for B", async () => {
    const found = await asA("/numbers/available?areaCode=646&sms=true&limit=3");
    expect(found.status, JSON.stringify(found.body)).toBe(200);
    ours = found.body.numbers[0].phoneNumber;
    const bought = await asA("/numbers", { body: { phoneNumber: ours } });
    expect(bought.status, JSON.stringify(bought.body)).toBe(201);
    oursId = bought.body.number.numberId;
    expect(bought.body.number).toMatchObject({ phoneNumber: ours, status: "active", source: "purchased", capabilities: { voice: true, sms: true, inbound: true } });
    // The carrier's side: the number is in the account with this deployment's webhooks.
    expect(twilio.numbers.find(ours)).toMatchObject({
      voiceUrl: `${VOICE_PUBLIC_BASE_URL}/api/carriers/twilio/voice/inbound`,
      statusCallback: `${VOICE_PUBLIC_BASE_URL}/api/carriers/twilio/voice/status`,
      smsUrl: `${VOICE_PUBLIC_BASE_URL}/api/carriers/twilio/messages/inbound`,
    });

    const before = await listNumbers(b);
    for (const attempt of [
      await asB("/numbers", { body: { phoneNumber: ours } }),
      await asB("/numbers", { body: { phoneNumber: ours, source: "platform-account" } }),
      await asB("/numbers/caller-id-validations", { body: { phoneNumber: ours } }),
    ]) {
      expect(attempt.status, JSON.stringify(attempt.body)).toBe(409);
      expect(attempt.body).toMatchObject({ error: "NUMBER_OWNED_ELSEWHERE", message: expect.stringContaining("phoneNumber") });
    }
    expect(await listNumbers(b)).toEqual(before);
    expect((await asB(`/numbers/${oursId}`)).status).toBe(404);
  });

  it("B cannot put A's number in a pool by any route: agent document (POST, PUT) and console — 409 naming the field, the pool unchanged", async () => {
    const agentOfB = b.agents[0]!.agentId;
    const config = await configOf(b, agentOfB);
    const poolBefore = config.phoneNumbers;

    const put = await asB(`/agents/${agentOfB}`, { method: "PUT", body: { ...config, phoneNumbers: [...poolBefore, ours] } });
    expect(put.status, JSON.stringify(put.body)).toBe(409);
    expect(put.body).toMatchObject({ error: "NUMBER_OWNED_ELSEWHERE", message: `phoneNumbers.${poolBefore.length}: ${ours} belongs to another organization` });

    const { agentId: _agentId, promptVersionId: _version, ...document } = config;
    const created = await asB("/agents", { body: { ...document, name: "Borrowed caller ID", phoneNumbers: [ours] } });
    expect(created.status, JSON.stringify(created.body)).toBe(409);
    expect(created.body.error).toBe("NUMBER_OWNED_ELSEWHERE");

    const viaConsole = await consoleOfB.trpc("agents.update", { ...config, agentId: agentOfB, phoneNumbers: [ours] });
    expect(viaConsole.status, JSON.stringify(viaConsole.body)).toBe(409);
    expect(JSON.stringify(viaConsole.body)).toContain("NUMBER_OWNED_ELSEWHERE");

    // Messaging settings' callback fallback: not B's number either.
    const fallback = await consoleOfB.trpc("organizations.updatePhoneNumberSettings", { phoneNumber: ours, fallbackMode: "message" });
    expect(fallback.status, JSON.stringify(fallback.body)).toBe(409);

    expect((await configOf(b, agentOfB)).phoneNumbers).toEqual(poolBefore);
    const listed = await asB(`/agents?orgId=${b.orgId}`);
    expect(listed.status, JSON.stringify(listed.body)).toBe(200);
    expect(listed.body.agents.map((agent: { name: string }) => agent.name)).not.toContain("Borrowed caller ID");
  });

  it("B's contacts, enrolled by the API or imported with a caller-ID column, are called from B's own numbers only", async () => {
    const agentOfB = b.agents[0]!.agentId;
    const poolOfB = (await configOf(b, agentOfB)).phoneNumbers;
    const enrolled = await asB(`/agents/${agentOfB}/schedule/sequence`, { body: { name: "Bea Contact", phoneNumber: "+16465550170", timezone: "America/New_York", company_name: "Initech", fromPhoneNumber: ours } });
    expect(enrolled.status, JSON.stringify(enrolled.body)).toBe(201);
    const imported = await consoleOfB.trpc("enrollment.submitImportBatch", {
      agentId: agentOfB,
      idempotencyKey: "numbers-assembly-1",
      contacts: [{ name: "Ivo Import", phoneNumber: "+16465550171", customVariables: { company_name: "Initech", fromPhoneNumber: ours, callerId: ours } }],
      timezone: "America/New_York",
    });
    expect(imported.status, JSON.stringify(imported.body)).toBe(200);
    for (const contact of ["+16465550170", "+16465550171"]) {
      const call = await waitFor(() => twilio.callTo(contact), { timeoutMs: 120_000, label: `B's call to ${contact}`, explain: () => app.logs().slice(-20) });
      expect(poolOfB).toContain(call.from);
      expect(call.from).not.toBe(ours);
    }
  });

  it("a STOP and a call to A's number reach A only: A's suppression, A's fallback; B's data unchanged", async () => {
    const contact = "+13125550177";
    const stop = await twilio.messaging.receive({ from: contact, to: ours, body: "STOP" });
    expect(stop.status).toBe(200);
    expect(await suppressed(a, contact)).toBe(true);
    expect(await suppressed(b, contact)).toBe(false);

    const call = twilio.callFrom({ from: "+13125550178", to: ours });
    await waitFor(() => ["completed", "busy", "no-answer", "failed"].includes(call.status), { label: "the call to A's number", timeoutMs: 60_000, explain: () => call.events });
    expect(call.status).toBe("completed");
    expect(call.said.join(" ")).toContain(`Thank you for calling ${a.name}`);
  });

  it("a released number routes nowhere: gone from the account and from A's pools; a platform number nobody owns is refused (busy), its STOP not recorded", async () => {
    const agentOfA = a.agents[0]!.agentId;
    const config = await configOf(a, agentOfA);
    const pooled = await asA(`/agents/${agentOfA}`, { method: "PUT", body: { ...config, phoneNumbers: [...config.phoneNumbers, ours] } });
    expect(pooled.status, JSON.stringify(pooled.body)).toBe(200);

    // A release the carrier refuses keeps the number.
    twilio.failNext({ status: 503, path: "IncomingPhoneNumbers" });
    const refused = await asA(`/numbers/${oursId}`, { method: "DELETE" });
    expect(refused.status, JSON.stringify(refused.body)).toBeGreaterThanOrEqual(502);
    expect((await asA(`/numbers/${oursId}`)).body.number.status).toBe("active");
    expect(twilio.numbers.find(ours)).toBeDefined();

    const released = await asA(`/numbers/${oursId}`, { method: "DELETE" });
    expect(released.status, JSON.stringify(released.body)).toBe(200);
    expect(released.body.number.status).toBe("released");
    expect(twilio.numbers.find(ours)).toBeUndefined();
    expect((await configOf(a, agentOfA)).phoneNumbers).not.toContain(ours);
    await expect(twilio.messaging.receive({ from: "+13125550179", to: ours, body: "STOP" })).rejects.toThrow();

    // A number in the platform's account that no organization owns, pointed at this deployment.
    const orphan = "+16465550199";
    twilio.addAccountNumber(orphan, { voiceUrl: `${VOICE_PUBLIC_BASE_URL}/api/twilio/voice/inbound`, smsUrl: `${VOICE_PUBLIC_BASE_URL}/api/twilio/messages/inbound` });
    const call = twilio.callFrom({ from: "+13125550180", to: orphan });
    await waitFor(() => ["completed", "busy", "no-answer", "failed"].includes(call.status), { label: "the call to nobody's number", timeoutMs: 60_000, explain: () => call.events });
    expect(call.status).toBe("busy");
    expect(call.said).toEqual([]);
    const text = await twilio.messaging.receive({ from: "+13125550181", to: orphan, body: "STOP" });
    expect(text.replies.filter((reply) => reply.source === "twiml")).toEqual([]);
    expect(await suppressed(a, "+13125550181")).toBe(false);
    expect(await suppressed(b, "+13125550181")).toBe(false);
    // The app's log line comes over its stdout pipe, which may trail the HTTP answer the simulator already acted on.
    await waitFor(() => app.logs().some((line) => String(line.msg).includes("no organization owns")), { label: "the refusal's log line", timeoutMs: 10_000 });
  });

  it("bad input: a malformed number, an unknown carrier answer, a number that cannot call in a voice pool — field errors, nothing written", async () => {
    const before = await listNumbers(a);
    const malformed = await asA("/numbers", { body: { phoneNumber: "12" } });
    expect(malformed.status).toBe(400);
    expect(malformed.body.message).toContain("phoneNumber");
    const validation = await asA("/numbers/caller-id-validations", { body: { phoneNumber: "not a number" } });
    expect(validation.status).toBe(400);
    twilio.failNext({ status: 500, path: "IncomingPhoneNumbers" });
    const failed = await asA("/numbers", { body: { phoneNumber: "+16465550150" } });
    expect(failed.status, JSON.stringify(failed.body)).toBeGreaterThanOrEqual(500);
    expect(await listNumbers(a)).toEqual(before);

    // A platform number that texts but cannot call: A may take it, not in a pool.
    const textOnly = "+16465550160";
    twilio.addAccountNumber(textOnly, { voice: false, sms: true });
    const claimed = await asA("/numbers", { body: { phoneNumber: textOnly, source: "platform-account" } });
    expect(claimed.status, JSON.stringify(claimed.body)).toBe(201);
    const agentOfA = a.agents[0]!.agentId;
    const config = await configOf(a, agentOfA);
    const voiceless = await asA(`/agents/${agentOfA}`, { method: "PUT", body: { ...config, phoneNumbers: [textOnly] } });
    expect(voiceless.status).toBe(400);
    expect(voiceless.body).toMatchObject({ error: "INVALID_REQUEST", message: expect.stringContaining("phoneNumbers.0") });
    expect((await configOf(a, agentOfA)).phoneNumbers).toEqual(config.phoneNumbers);
  });
});
