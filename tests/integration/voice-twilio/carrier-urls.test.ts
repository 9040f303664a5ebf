import { eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { POST as carrierRoute } from "@/app/api/carriers/[carrier]/[...path]/route";
import { POST as legacyCallbackRoute } from "@/app/api/voice/twilio/[hook]/route";
import { POST as legacyInboundRoute } from "@/app/api/twilio/voice/[hook]/route";
import { calls } from "@/db/schema";
import { twilioSignature } from "@/server/simulators/twilio";
import { setVoiceEngine } from "@/server/voice";
import { apiClient } from "@/tests/helpers/api";
import { useTestDb } from "@/tests/helpers/db";
import { createTestAgent, createTestOrganization } from "@/tests/factories";
import { AGENT_DEFINITIONS, callStep } from "../call-engine/harness";
import { useRecordingsSandbox } from "../conversations/fixtures";
import { PUBLIC_BASE_URL, startVoiceStack, type VoiceStack } from "./harness";

/**
 * Twilio's URL family (docs/carriers.md "URLs"): the engine gives Twilio `/api/carriers/twilio/…` and
 * `/ws/carriers/twilio` for new calls; the route serves that family through the registry, with the signature checked
 * over the path requested; the older paths stay as aliases.
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
afterEach(() => setVoiceEngine(undefined));

const CALLS = `${PUBLIC_BASE_URL}/api/carriers/twilio/calls/`;
let sidCounter = 0;
/** The call the first test placed (its ID, Twilio's CallSid): its callbacks are replayed on both families. */
let placed: { callId: string; callSid: string } | null = null;
const newCallSid = () => `CA${(++sidCounter).toString(16).padStart(8, "0")}${"cd".repeat(12)}`;

/** A POST as Twilio sends it to `publicUrl` (signed over it, or forged), delivered to the app at the same path. */
function twilioPost(publicUrl: string, form: Record<string, string>, options: { forged?: boolean } = {}): Request {
  const signature = twilioSignature(stack.twilio.authToken, publicUrl, options.forged ? { ...form, CallStatus: "busy" } : form);
  const url = new URL(publicUrl);
  return new Request(`http://127.0.0.1:3000${url.pathname}${url.search}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", "x-twilio-signature": signature },
    body: new URLSearchParams(form).toString(),
  });
}
const routeParams = (publicUrl: string) => {
  const [, , , carrier, ...path] = new URL(publicUrl).pathname.split("/");
  return { params: Promise.resolve({ carrier: carrier!, path }) };
};

describe("Twilio's URL family", () => {
  it("a new call is given the new URLs (callbacks, status, AMD, recording, media stream), and each is served", async () => {
    const { organization, apiKey } = await createTestOrganization(db, { monthlyCreditAllocation: 10_000 });
    stack.watchdogScope.push(organization.id);
    const agent = await createTestAgent(db, organization.id, { name: "Ava", phoneNumbers: ["+13125550141"], steps: [callStep()], ...AGENT_DEFINITIONS });
    const enrolled = await api(`/agents/${agent.id}/schedule/sequence`, { method: "POST", key: apiKey, body: { name: "Jane Doe", phoneNumber: "+12025550181", timezone: "America/New_York", company_name: "Acme Corp" } });
    expect(enrolled.status, JSON.stringify(enrolled.body)).toBe(201);
    const sequenceId = enrolled.body.sequence.sequenceId as string;
    await stack.runUntil(async () => (await db.select().from(calls).where(eq(calls.sequenceId, sequenceId))).some((call) => call.analyzedAt != null), { timeoutMs: 90_000, label: "the call analysed" });

    const simCall = stack.twilio.callTo("+12025550181")!;
    placed = { callId: (await db.select().from(calls).where(eq(calls.sequenceId, sequenceId)))[0]!.id, callSid: simCall.sid };
    for (const key of ["Url", "StatusCallback", "AsyncAmdStatusCallback", "RecordingStatusCallback"]) {
      expect(String(simCall.params[key]), key).toMatch(new RegExp(`^${CALLS.replace(/[.]/g, "\\.")}(twiml|status|amd|recording)\\?callId=`));
    }
    const sent = stack.twilio.callbacks.filter((entry) => entry.params.CallSid === simCall.sid);
    expect(sent.map((entry) => entry.kind)).toEqual(expect.arrayContaining(["twiml", "status"]));
    for (const entry of sent) {
      expect(entry.url.startsWith(CALLS), entry.url).toBe(true);
      expect(entry.status, entry.url).toBe(200);
    }
    expect(stack.mediaPaths).toContain("/ws/carriers/twilio");
    expect(simCall.events.some((event) => event.startsWith("stream-error") || event.startsWith("stream-refused"))).toBe(false);
  }, 120_000);

  it("POST /api/carriers/twilio/…: signed → handled, forged → 403; the older paths (aliases) alike", async () => {
    setVoiceEngine(stack.engine);
    const form = { CallSid: newCallSid(), AccountSid: stack.twilio.accountSid, CallStatus: "completed", From: "+12025550100", To: "+13125550100" };
    // A number's call-status webhook (an unknown call: answered with empty TwiML, nothing stored).
    for (const url of [`${PUBLIC_BASE_URL}/api/carriers/twilio/voice/status`]) {
      const signed = await carrierRoute(twilioPost(url, form), routeParams(url));
      expect(signed.status, url).toBe(200);
      expect(await signed.text()).toContain("<Response");
      expect((await carrierRoute(twilioPost(url, form, { forged: true }), routeParams(url))).status, url).toBe(403);
    }
    const legacyInbound = `${PUBLIC_BASE_URL}/api/twilio/voice/status`;
    expect((await legacyInboundRoute(twilioPost(legacyInbound, form))).status).toBe(200);
    expect((await legacyInboundRoute(twilioPost(legacyInbound, form, { forged: true }))).status).toBe(403);
    // A signature made for the old path does not pass on the new one (it is checked over the path requested).
    const crossed = twilioPost(legacyInbound, form);
    const onNew = new Request("http://127.0.0.1:3000/api/carriers/twilio/voice/status", { method: "POST", headers: crossed.headers, body: await crossed.text() });
    expect((await carrierRoute(onNew, routeParams(`${PUBLIC_BASE_URL}/api/carriers/twilio/voice/status`))).status).toBe(403);

    // A per-call callback: the placed call's final status again (signed: read, the call already over; forged: 403).
    expect(placed, "the first test placed a call").not.toBeNull();
    const replay = { ...form, CallSid: placed!.callSid };
    const query = `status?callId=${encodeURIComponent(placed!.callId)}`;
    const callbackUrl = `${CALLS}${query}`;
    const handled = await carrierRoute(twilioPost(callbackUrl, replay), routeParams(callbackUrl));
    expect(handled.status).toBe(200);
    expect(await handled.text()).toContain("<Response");
    expect((await carrierRoute(twilioPost(callbackUrl, replay, { forged: true }), routeParams(callbackUrl))).status).toBe(403);
    const legacyCallback = `${PUBLIC_BASE_URL}/api/voice/twilio/${query}`;
    expect((await legacyCallbackRoute(twilioPost(legacyCallback, replay))).status).toBe(200);
    expect((await legacyCallbackRoute(twilioPost(legacyCallback, replay, { forged: true }))).status).toBe(403);
  });

  it("an unknown carrier, area or hook, or a carrier without webhooks → 404 {error, message}", async () => {
    setVoiceEngine(stack.engine);
    for (const path of ["/api/carriers/telnyx/calls/status", "/api/carriers/twilio/faxes/status", "/api/carriers/twilio/calls/media", "/api/carriers/twilio/calls", "/api/carriers/twilio/voice/status/x", "/api/carriers/simulator/calls/status", "/api/carriers/twilio-realtime/calls/status"]) {
      const url = `${PUBLIC_BASE_URL}${path}`;
      const response = await carrierRoute(twilioPost(url, { CallSid: newCallSid() }), routeParams(url));
      expect(response.status, path).toBe(404);
      expect(await response.json(), path).toMatchObject({ error: "NOT_FOUND", message: expect.any(String) });
    }
    // With another voice engine, the call areas are not served (as on the older paths).
    setVoiceEngine({ kind: "test-double", maxCallWallSeconds: 60, placeCall: async () => ({ providerCallId: "p", alreadyPlaced: false }), callState: async () => ({ state: "unknown" }) });
    const url = `${PUBLIC_BASE_URL}/api/carriers/twilio/voice/status`;
    const response = await carrierRoute(twilioPost(url, { CallSid: newCallSid() }), routeParams(url));
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: "NOT_FOUND" });
  });
});
