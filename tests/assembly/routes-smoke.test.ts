/**
 * A route smoke test of the built app behind `npm start` (embedded defaults): every operation of the OpenAPI document,
 * the operator endpoints, the voice callbacks without a signature, and every console page for a signed-in admin —
 * no 5xx anywhere, each answering what it should.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signIn, startBuiltApp, type BuiltApp, type ConsoleSession } from "./harness";

let app: BuiltApp;
let admin: ConsoleSession;
let ids: Record<string, string>;

type Operation = { parameters?: Array<{ name: string; in: string; required?: boolean; schema?: { type?: string; enum?: string[] } }>; requestBody?: unknown };

beforeAll(async () => {
  app = await startBuiltApp();
  const user = app.demo.dashboard.users.find((candidate) => candidate.role === "admin")!;
  admin = await signIn(app, user, app.primary.orgId);
  const fixtures = app.primary.fixtures as { sequenceIds: string[]; futureMeetingEntityId: string };
  const sequenceId = fixtures.sequenceIds[0]!;
  const metadata = await app.api(`/conversations/metadata/${sequenceId}`);
  expect(metadata.status).toBe(200);
  const callId = JSON.stringify(metadata.body).match(/"(call\.[0-9a-z]{26})"/)?.[1];
  expect(callId).toBeDefined();
  const endpoints = await admin.trpc("webhooks.listEndpoints", undefined, { method: "GET" });
  ids = {
    agentId: app.primary.agents.find((agent) => agent.role === "link")!.agentId,
    sequenceId,
    callId: callId!,
    entityId: fixtures.futureMeetingEntityId,
    orgId: app.primary.orgId,
    endpointId: (endpoints.body?.result?.data?.endpoints ?? endpoints.body?.result?.data ?? [])[0]?.id ?? "webhook-endpoint.none",
  };
}, 300_000);

afterAll(async () => {
  await app?.stop();
});

/** A plausible value for a parameter: the demo's IDs by name, an enum's first value, a date, or a word. */
function valueFor(name: string, schema: { type?: string; enum?: string[] } = {}): string {
  if (ids[name]) return ids[name]!;
  if (schema.enum?.length) return schema.enum[0]!;
  if (/date|from|to|after|before/i.test(name)) return "2026-11-01";
  if (name === "month") return "2026-11";
  if (schema.type === "integer" || schema.type === "number" || /page|limit/i.test(name)) return "1";
  if (schema.type === "boolean") return "true";
  return "x";
}

describe("route smoke on the built app (npm start)", () => {
  it("every operation of the OpenAPI document answers without a 5xx", async () => {
    const document = await fetch(`${app.origin}/api/v1/openapi.json`).then((res) => res.json() as Promise<{ paths: Record<string, Record<string, Operation>> }>);
    const results: string[] = [];
    let operations = 0;
    for (const [template, methods] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        if (!["get", "post", "head", "put", "patch", "delete"].includes(method)) continue;
        operations += 1;
        const path = template.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(valueFor(name)));
        const query = new URLSearchParams();
        for (const parameter of operation.parameters ?? []) if (parameter.in === "query" && parameter.required) query.set(parameter.name, valueFor(parameter.name, parameter.schema));
        const target = `${app.origin}/api/v1${path}${query.size ? `?${query}` : ""}`;
        const response = await fetch(target, {
          method: method.toUpperCase(),
          headers: { "x-api-key": app.primary.apiKey, ...(operation.requestBody ? { "content-type": "application/json" } : {}) },
          body: operation.requestBody ? "{}" : undefined,
        });
        await response.arrayBuffer();
        results.push(`${response.status} ${method.toUpperCase()} ${template}`);
        // The API's rate limit is 10 per second per key: stay under it.
        await new Promise((resolve) => setTimeout(resolve, 110));
      }
    }
    expect(operations).toBeGreaterThan(15);
    expect(results.filter((line) => line.startsWith("5")), results.join("\n")).toEqual([]);
    expect(results.filter((line) => line.startsWith("429")), results.join("\n")).toEqual([]);
  });

  it("operator endpoints answer, and the voice callbacks refuse what is not signed", async () => {
    expect((await fetch(`${app.origin}/healthz`)).status).toBe(200);
    expect((await fetch(`${app.origin}/readyz`)).status).toBe(200);
    const metrics = await fetch(`${app.origin}/metrics`);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toContain("http_request_duration_seconds");
    // The voice simulator's event entry point: unsigned → 401, nothing read.
    const events = await fetch(`${app.origin}/api/voice/events`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ type: "call.ended", callId: "call.x" }) });
    expect(events.status).toBe(401);
    // The real engine's callbacks do not exist with the simulator: not found, never served unsigned.
    const twilio = await fetch(`${app.origin}/api/voice/twilio/status?callId=call.x`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "CallSid=CA1" });
    expect(twilio.status).toBe(404);
    // The numbers' inbound voice webhooks too (404 with the simulator; with twilio-realtime unsigned → 403, sequences-channels.test.ts).
    const inboundCall = await fetch(`${app.origin}/api/twilio/voice/inbound`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "CallSid=CA1" });
    expect(inboundCall.status).toBe(404);
    // A WebSocket upgrade on a path of ours that nothing serves is refused by us, not by Next.
    const upgrade = await fetch(`${app.origin}/ws/voice/twilio`, { headers: { connection: "upgrade", upgrade: "websocket", "sec-websocket-version": "13", "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==" } }).catch((error: unknown) => error);
    expect(upgrade instanceof Response ? upgrade.status : 404).toBe(404);
  });

  it("every console page renders for a signed-in admin", async () => {
    const org = app.primary.orgId;
    const pages = [
      `/${org}`,
      `/${org}/account`,
      `/${org}/agents`,
      `/${org}/agents/new`,
      `/${org}/agents/${ids.agentId}`,
      `/${org}/api-keys`,
      `/${org}/calls/${ids.callId}`,
      `/calls/${ids.callId}`,
      `/${org}/compliance`,
      `/${org}/conversations`,
      `/${org}/credits`,
      `/${org}/customers`,
      `/${org}/import`,
      `/${org}/integrations`,
      `/${org}/jobs`,
      `/${org}/live-calls`,
      `/${org}/meetings`,
      `/${org}/members`,
      `/${org}/messaging`,
      `/${org}/sequences/${ids.sequenceId}`,
      `/${org}/suppressions`,
      `/${org}/webhooks`,
    ];
    const failures: string[] = [];
    for (const page of pages) {
      // `/calls/{callId}` (the webhook's callUrl) redirects to the organization's call page.
      const response = await fetch(`${app.origin}${page}`, { headers: { cookie: admin.cookie } });
      const html = await response.text();
      const landed = new URL(response.url).pathname;
      if (response.status !== 200 || !html.includes("</html>") || landed === "/sign-in") failures.push(`${response.status} ${page} → ${landed}`);
    }
    expect(failures).toEqual([]);
    const signedOut = await fetch(`${app.origin}/${org}/agents`, { redirect: "manual" });
    expect([302, 303, 307]).toContain(signedOut.status);
  });
});
