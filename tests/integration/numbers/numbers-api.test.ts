import { and, eq } from "drizzle-orm";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it, onTestFinished, vi } from "vitest";
import { POST as validationRoute } from "@/app/api/twilio/numbers/[hook]/route";
import { agents, numbers, optOuts } from "@/db/schema";
import { getMessaging } from "@/server/services/messaging/twilio-messaging";
import { receiveSms } from "@/server/services/messaging/receive-sms";
import { startInboundCall } from "@/server/services/call-engine/inbound-call";
import { createTestAgent, createTestOrganization } from "../../factories";
import { apiClient } from "../../helpers/api";
import { useTestDb } from "../../helpers/db";
import { createOrgWithRoles } from "../dashboard/helpers";

const db = useTestDb();
const api = apiClient(db);

async function simulator() {
  const { simulator } = await getMessaging();
  if (!simulator) throw new Error("the tests use the embedded Twilio simulator");
  return simulator;
}

/** A number the carrier offers that nobody here owns: each test its own area code, so parallel tests never meet. */
async function availableNumber(key: string, areaCode: string): Promise<string> {
  const found = await api("/numbers/available", { key, query: { areaCode, sms: "true", limit: 5 } });
  expect(found.status, found.text).toBe(200);
  expect(found.body.numbers.length).toBeGreaterThan(0);
  return found.body.numbers[0].phoneNumber as string;
}

async function buy(key: string, phoneNumber: string) {
  return api("/numbers", { method: "POST", key, body: { phoneNumber } });
}

describe("numbers: owned by one organization", () => {
  it("buys a number with its webhooks pointed at this deployment, lists it, and refuses it to another organization", async () => {
    const a = await createTestOrganization(db);
    const b = await createTestOrganization(db);
    const phoneNumber = await availableNumber(a.apiKey, "646");

    const bought = await buy(a.apiKey, phoneNumber);
    expect(bought.status, bought.text).toBe(201);
    expect(bought.body.number).toMatchObject({ phoneNumber, carrier: "twilio", source: "purchased", status: "active", capabilities: { voice: true, sms: true, inbound: true }, dailyCallCap: 100 });
    const held = (await simulator()).numbers.find(phoneNumber);
    const { settings } = await getMessaging();
    expect(held).toMatchObject({ voiceUrl: `${settings.publicBaseUrl}/api/carriers/twilio/voice/inbound`, smsUrl: `${settings.publicBaseUrl}/api/carriers/twilio/messages/inbound`, statusCallback: `${settings.publicBaseUrl}/api/carriers/twilio/voice/status` });

    const listed = await api("/numbers", { key: a.apiKey });
    expect(listed.body.numbers.map((n: { phoneNumber: string }) => n.phoneNumber)).toContain(phoneNumber);
    expect((await api("/numbers", { key: b.apiKey })).body.numbers.map((n: { phoneNumber: string }) => n.phoneNumber)).not.toContain(phoneNumber);

    const again = await buy(b.apiKey, phoneNumber);
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ error: "NUMBER_OWNED_ELSEWHERE", message: expect.stringContaining("phoneNumber") });
    const claim = await api("/numbers", { method: "POST", key: b.apiKey, body: { phoneNumber, source: "platform-account" } });
    expect(claim.body.error).toBe("NUMBER_OWNED_ELSEWHERE");
    const validation = await api("/numbers/caller-id-validations", { method: "POST", key: b.apiKey, body: { phoneNumber } });
    expect(validation.status).toBe(409);
    expect(validation.body.error).toBe("NUMBER_OWNED_ELSEWHERE");
    expect(await db.select().from(numbers).where(eq(numbers.organizationId, b.organization.id))).toEqual([]);
    // Another organization's number is not found by ID either.
    expect((await api(`/numbers/${bought.body.number.numberId}`, { key: b.apiKey })).status).toBe(404);
  });

  it("refuses bad input with field errors and leaves nothing behind when the carrier refuses", async () => {
    const { organization, apiKey } = await createTestOrganization(db);
    for (const body of [{ phoneNumber: "not a number" }, { phoneNumber: "+1415555\u00000171" }, { phoneNumber: "+14155550171 ext. 2" }, {}]) {
      const res = await api("/numbers", { method: "POST", key: apiKey, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.message).toContain("phoneNumber");
    }
    expect((await api("/numbers/available", { key: apiKey, query: { areaCode: "12" } })).body).toMatchObject({ error: "INVALID_REQUEST", message: expect.stringContaining("areaCode") });
    expect((await api("/numbers/number.x", { key: apiKey })).status).toBe(400);

    const phoneNumber = await availableNumber(apiKey, "617");
    const sim = await simulator();
    sim.failNext({ status: 400, path: "/IncomingPhoneNumbers.json" });
    const refused = await buy(apiKey, phoneNumber);
    expect(refused.status).toBe(502);
    expect(refused.body.error).toBe("PROVIDER_ERROR");
    expect(await db.select().from(numbers).where(eq(numbers.organizationId, organization.id))).toEqual([]);
    expect(sim.numbers.find(phoneNumber)).toBeUndefined();

    // A number that is not in the platform account cannot be claimed from it.
    const notHeld = await api("/numbers", { method: "POST", key: apiKey, body: { phoneNumber, source: "platform-account" } });
    expect(notHeld.status).toBe(400);
    expect(notHeld.body.message).toContain("platform");
  });

  it("pools hold only the organization's own numbers that place calls", async () => {
    const a = await createOrgWithRoles(db);
    const b = await createTestOrganization(db);
    const agentOfB = await createTestAgent(db, b.organization.id);
    const theirs = agentOfB.phoneNumbers[0]!;
    const agent = await createTestAgent(db, a.organization.id);
    const view = await a.as("admin").agents.getConfig({ agentId: agent.id });
    const save = (phoneNumbers: string[]) => a.as("admin").agents.update({ ...view, agentId: agent.id, phoneNumbers });

    await expect(save([...view.phoneNumbers, theirs])).rejects.toMatchObject({ message: `phoneNumbers.1: ${theirs} belongs to another organization` });
    await expect(save(["+16175550188"])).rejects.toMatchObject({ message: expect.stringMatching(/^phoneNumbers\.0: \+16175550188 is not one of this organization's numbers/) });
    const rest = await api(`/agents/${agent.id}`, { method: "PUT", key: a.apiKey, body: { ...view, phoneNumbers: [theirs] } });
    expect(rest.status, rest.text).toBe(409);
    expect(rest.body).toMatchObject({ error: "NUMBER_OWNED_ELSEWHERE", message: expect.stringContaining("phoneNumbers.0") });
    const [stored] = await db.select({ phoneNumbers: agents.phoneNumbers }).from(agents).where(eq(agents.id, agent.id));
    expect(stored!.phoneNumbers).toEqual(view.phoneNumbers);
  });

  it("routes a call and a STOP to the number's owner only, and refuses a released number's", async () => {
    const a = await createTestOrganization(db);
    const b = await createTestOrganization(db);
    const agentOfA = await createTestAgent(db, a.organization.id);
    await createTestAgent(db, b.organization.id);
    const ours = agentOfA.phoneNumbers[0]!;
    const caller = "+13125550147";

    const stop = await receiveSms(db, { from: caller, to: ours, body: "STOP", providerMessageId: `SM${"1".repeat(32)}`, optOutHandling: "app", now: new Date() });
    expect(stop.organizationId).toBe(a.organization.id);
    expect(await db.select().from(optOuts).where(eq(optOuts.phoneNumber, caller))).toEqual([expect.objectContaining({ organizationId: a.organization.id })]);

    const inbound = await startInboundCall(db, { from: caller, to: ours, providerCallId: null, now: new Date(), engine: "simulator" });
    expect(inbound).toMatchObject({ kind: "fallback", organizationId: a.organization.id, reason: "unknown-caller" });

    const [row] = await db.select().from(numbers).where(and(eq(numbers.organizationId, a.organization.id), eq(numbers.phoneNumber, ours)));
    const released = await api(`/numbers/${row!.id}`, { method: "DELETE", key: a.apiKey });
    expect(released.status, released.text).toBe(200);
    expect(released.body.number.status).toBe("released");
    const [pool] = await db.select({ phoneNumbers: agents.phoneNumbers }).from(agents).where(eq(agents.id, agentOfA.id));
    expect(pool!.phoneNumbers).toEqual([]);
    expect(await startInboundCall(db, { from: caller, to: ours, providerCallId: null, now: new Date(), engine: "simulator" })).toEqual({ kind: "reject", reason: "unknown-number" });
    const ignored = await receiveSms(db, { from: "+13125550148", to: ours, body: "STOP", providerMessageId: `SM${"2".repeat(32)}`, optOutHandling: "app", now: new Date() });
    expect(ignored).toMatchObject({ organizationId: null, reply: null });
    expect(await db.select().from(optOuts).where(eq(optOuts.phoneNumber, "+13125550148"))).toEqual([]);
  });

  it("proves a number with a caller-ID validation call; a number owned elsewhere cannot be validated", async () => {
    // Twilio reaches this deployment's PUBLIC_BASE_URL: the embedded simulator posts to the app's port on loopback,
    // here a server in front of the real route handler.
    const { settings } = await getMessaging();
    const app = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        const headers = Object.entries(req.headers).flatMap(([key, value]) => (typeof value === "string" ? [[key, value] as [string, string]] : []));
        void validationRoute(new Request(`${settings.publicBaseUrl}${req.url}`, { method: req.method, headers, body: Buffer.concat(chunks) })).then(async (response) => {
          res.writeHead(response.status).end(Buffer.from(await response.arrayBuffer()));
        });
      });
    });
    await new Promise<void>((resolve) => app.listen(0, "127.0.0.1", resolve));
    vi.stubEnv("PORT", String((app.address() as AddressInfo).port));
    onTestFinished(() => {
      vi.unstubAllEnvs();
      app.close();
    });
    const { organization, apiKey } = await createTestOrganization(db);
    const mine = "+15085550161";
    const started = await api("/numbers/caller-id-validations", { method: "POST", key: apiKey, body: { phoneNumber: mine, friendlyName: "Office" } });
    expect(started.status, started.text).toBe(201);
    expect(started.body.validationCode).toMatch(/^\d{6}$/);
    expect(started.body.number).toMatchObject({ phoneNumber: mine, status: "verifying", source: "verified-caller-id", capabilities: { voice: true, sms: false, inbound: false } });
    const sim = await simulator();
    await sim.idle();
    const deadline = Date.now() + 20_000;
    let status = "verifying";
    while (status === "verifying" && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      status = (await api(`/numbers/${started.body.number.numberId}`, { key: apiKey })).body.number.status;
    }
    expect(status).toBe("active");
    const [row] = await db.select().from(numbers).where(eq(numbers.organizationId, organization.id));
    expect(row).toMatchObject({ phoneNumber: mine, status: "active", providerSid: expect.stringMatching(/^PN/) });
  }, 60_000);
});
