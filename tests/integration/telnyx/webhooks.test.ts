import { and, eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { carrierWebhookEvents, optOuts, sequenceMessages } from "@/db/schema";
import { STOP_CONFIRMATION } from "@/server/services/messaging/sms-keywords";
import { newSigningKey } from "@/server/simulators/telnyx/signing";
import { createTestOrganization, testPoolNumbers } from "../../factories";
import { useTestDb } from "../../helpers/db";
import { startTelnyxApp, type Delivery } from "./helpers";

/**
 * Issue 36, "done when" 3: a Telnyx webhook is verified at /api/carriers/telnyx/… (the real route handler; the
 * embedded Telnyx simulator signs with its Ed25519 key as Telnyx does): a genuine one is taken; a forged, replayed or
 * stale one is refused 403 `{error, message}` and changes nothing.
 */
const db = useTestDb();
let app: Awaited<ReturnType<typeof startTelnyxApp>>;
beforeAll(async () => {
  app = await startTelnyxApp();
});
afterAll(async () => {
  await app?.stop();
});
afterEach(() => {
  vi.useRealTimers();
});

async function setUp() {
  const { organization } = await createTestOrganization(db, { name: "Acme Telnyx" });
  const [ours] = await testPoolNumbers(db, organization.id, ["332"], { carrier: "telnyx" });
  return { organization, ours: ours! };
}

/** A genuine signed `message.received` the simulator delivered to a capture path (not yet to the app). */
async function captured(params: { from: string; to: string; text: string }): Promise<Delivery> {
  const { id } = await app.simulator.messaging.receive({ ...params, url: `${app.base}/capture/inbound` });
  return app.deliveries.find((delivery) => delivery.path === "/capture/inbound" && delivery.body.includes(id))!;
}

const inbound = (body: string, headers: Record<string, string>) => app.post("/api/carriers/telnyx/messages/inbound", body, headers);

async function stored(organizationId: string, from: string) {
  const messages = await db.select().from(sequenceMessages).where(and(eq(sequenceMessages.organizationId, organizationId), eq(sequenceMessages.fromAddress, from)));
  const optedOut = (await db.select().from(optOuts).where(and(eq(optOuts.organizationId, organizationId), eq(optOuts.phoneNumber, from)))).length > 0;
  return { messages: messages.length, optedOut };
}

describe("Telnyx webhooks: /api/carriers/telnyx/messages/*", () => {
  it("a genuine message.received is taken: STOP suppresses the sender and the answer goes back through Telnyx", async () => {
    const { organization, ours } = await setUp();
    const contact = "+13325550141";
    await app.simulator.messaging.receive({ from: contact, to: ours, text: "STOP", url: `${app.base}/api/carriers/telnyx/messages/inbound` });
    const delivered = app.deliveries.find((delivery) => delivery.path === "/api/carriers/telnyx/messages/inbound" && delivery.body.includes(contact))!;
    expect(delivered.status).toBe(200);
    expect(await stored(organization.id, contact)).toEqual({ messages: 1, optedOut: true });
    const [message] = await db.select().from(sequenceMessages).where(eq(sequenceMessages.fromAddress, contact));
    expect(message).toMatchObject({ direction: "inbound", status: "received", transport: "telnyx", toAddress: ours, body: "STOP" });
    const answer = [...app.simulator.messaging.messages.values()].find((sent) => sent.to === contact);
    expect(answer).toMatchObject({ from: ours, text: STOP_CONFIRMATION });
  });

  it("the same event delivered again is refused (403), within the five minutes: its data.id is remembered in Postgres", async () => {
    const { organization, ours } = await setUp();
    const contact = "+13325550142";
    const hook = await captured({ from: contact, to: ours, text: "Sounds good" });
    expect((await inbound(hook.body, hook.headers)).status).toBe(200);
    const eventId = (JSON.parse(hook.body) as { data: { id: string } }).data.id;
    expect(await db.select().from(carrierWebhookEvents).where(eq(carrierWebhookEvents.eventId, eventId))).toHaveLength(1);

    await db.delete(sequenceMessages).where(eq(sequenceMessages.fromAddress, contact)); // so a replay taken would show
    const replayed = await inbound(hook.body, hook.headers);
    expect(replayed.status).toBe(403);
    expect(await replayed.json()).toEqual({ error: "FORBIDDEN", message: expect.stringContaining("already received") });
    expect(await stored(organization.id, contact)).toEqual({ messages: 0, optedOut: false });
  });

  it("a forged webhook (tampered body, or signed with another key) is refused and changes nothing", async () => {
    const { organization, ours } = await setUp();
    const contact = "+13325550143";
    const hook = await captured({ from: contact, to: ours, text: "Sounds good" });
    const tampered = hook.body.replace('"text":"Sounds good"', '"text":"STOP"');
    expect(tampered).not.toBe(hook.body);
    const refused = await inbound(tampered, hook.headers);
    expect(refused.status).toBe(403);
    expect(await refused.json()).toEqual({ error: "FORBIDDEN", message: expect.stringContaining("signature does not match") });

    const forger = newSigningKey();
    const forged = await inbound(tampered, { ...hook.headers, ...forger.headersFor(tampered) });
    expect(forged.status).toBe(403);
    const unsigned = await inbound(hook.body, { "content-type": "application/json" });
    expect(unsigned.status).toBe(403);
    expect(await unsigned.json()).toMatchObject({ error: "FORBIDDEN", message: expect.stringContaining("Telnyx-Signature-Ed25519") });
    expect(await stored(organization.id, contact)).toEqual({ messages: 0, optedOut: false });
    // Nothing of a refused webhook is remembered: the genuine delivery is still taken afterwards.
    expect((await inbound(hook.body, hook.headers)).status).toBe(200);
    expect(await stored(organization.id, contact)).toEqual({ messages: 1, optedOut: false });
  });

  it("a body larger than any Telnyx event (over 256,000 characters) is refused before anything is read from it", async () => {
    const { organization, ours } = await setUp();
    const contact = "+13325550147";
    const hook = await captured({ from: contact, to: ours, text: "STOP" });
    const padded = `${hook.body}${" ".repeat(260_000)}`;
    const refused = await inbound(padded, hook.headers);
    expect(refused.status).toBe(403);
    expect(await refused.json()).toEqual({ error: "FORBIDDEN", message: expect.stringContaining("too large") });
    expect(await stored(organization.id, contact)).toEqual({ messages: 0, optedOut: false });
    // Its id was not recorded: the genuine delivery is still taken.
    expect((await inbound(hook.body, hook.headers)).status).toBe(200);
    expect(await stored(organization.id, contact)).toMatchObject({ optedOut: true });
  });

  it("a genuine webhook delivered more than five minutes after it was signed is stale: refused, nothing changed", async () => {
    const { organization, ours } = await setUp();
    const contact = "+13325550144";
    const hook = await captured({ from: contact, to: ours, text: "STOP" });
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 6 * 60_000);
    const stale = await inbound(hook.body, hook.headers);
    expect(stale.status).toBe(403);
    expect(await stale.json()).toEqual({ error: "FORBIDDEN", message: expect.stringContaining("too old or too new") });
    vi.useRealTimers();
    expect(await stored(organization.id, contact)).toEqual({ messages: 0, optedOut: false });
  });

  it("old event ids are pruned as new ones come in; an unknown area or hook is 404", async () => {
    await db.insert(carrierWebhookEvents).values({ carrier: "telnyx", eventId: "old-event-of-this-test", receivedAt: new Date(Date.now() - 60 * 60_000) });
    const { ours } = await setUp();
    const hook = await captured({ from: "+13325550145", to: ours, text: "hello" });
    expect((await inbound(hook.body, hook.headers)).status).toBe(200);
    expect(await db.select().from(carrierWebhookEvents).where(eq(carrierWebhookEvents.eventId, "old-event-of-this-test"))).toHaveLength(0);
    const unknown = await app.post("/api/carriers/telnyx/calls/status", hook.body, hook.headers);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: "NOT_FOUND" });
  });
});
