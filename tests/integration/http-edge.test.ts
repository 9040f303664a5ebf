import { afterEach, describe, expect, it } from "vitest";
import { appBaseUrl } from "@/server/config/settings";
import { handleApiV1 } from "@/server/http/api-v1";
import type { RateLimitStore } from "@/server/http/rate-limit";
import { createTestAgent, createTestOrganization } from "../factories";
import { apiClient } from "../helpers/api";
import { useTestDb } from "../helpers/db";

const db = useTestDb();
/** These tests are about other things than the per-key limit (tests/integration/rate-limit.test.ts). */
const unlimitedKeys: RateLimitStore = { hit: async (_subject, _policy, nowMs) => ({ allowed: true, hits: [nowMs] }) };
const api = apiClient(db, { rateLimits: { keyStore: unlimitedKeys } });

/**
 * A request body that records how much of it was pulled: `size` bytes of JSON-ish filler, no Content-Length, and
 * a high-water mark of 0 so nothing is pulled until someone reads.
 */
function trackedBody(size: number) {
  const state = { pulledBytes: 0 };
  const chunk = new TextEncoder().encode(" ".repeat(16 * 1024));
  let sent = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent === 0) controller.enqueue(new TextEncoder().encode('{"x":"'));
      if (sent >= size) {
        controller.enqueue(new TextEncoder().encode('"}'));
        controller.close();
        return;
      }
      sent += chunk.byteLength;
      state.pulledBytes = sent;
      controller.enqueue(chunk);
    },
  }, { highWaterMark: 0 });
  return { stream, state };
}

async function post(path: string, init: { key?: string; body: BodyInit; headers?: Record<string, string> }) {
  const headers = new Headers({ "content-type": "application/json", ...init.headers });
  if (init.key) headers.set("x-api-key", init.key);
  const req = new Request(`http://localhost/api/v1${path}`, { method: "POST", headers, body: init.body, duplex: "half" } as RequestInit);
  const res = await handleApiV1(req, { db, socketAddress: `198.51.100.${Math.floor(Math.random() * 250)}`, rateLimits: { keyStore: unlimitedKeys } });
  return { status: res.status, body: (await res.json()) as { error: string; message: string } };
}

function paddedJson(bytes: number, fields: Record<string, unknown> = {}) {
  const base = JSON.stringify({ ...fields, padding: "" });
  return base.replace('"padding":""', `"padding":"${"a".repeat(Math.max(0, bytes - base.length))}"`);
}

describe("body limits", () => {
  afterEach(() => {
    delete process.env.API_BODY_LIMIT_BYTES;
    delete process.env.API_BULK_BODY_LIMIT_BYTES;
  });

  it("answers 413 PAYLOAD_TOO_LARGE from Content-Length alone, without reading the body", async () => {
    const { apiKey } = await createTestOrganization(db);
    const { stream, state } = trackedBody(10 * 1024 * 1024);
    const res = await post("/sequences/cancel", { key: apiKey, body: stream, headers: { "content-length": String(10 * 1024 * 1024) } });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ error: "PAYLOAD_TOO_LARGE", message: expect.stringContaining("262144 bytes") });
    expect(state.pulledBytes).toBe(0);
  });

  it("cuts a streamed body without Content-Length off at the limit", async () => {
    const { apiKey } = await createTestOrganization(db);
    const { stream, state } = trackedBody(50 * 1024 * 1024);
    const res = await post("/sequences/cancel", { key: apiKey, body: stream });
    expect(res.status).toBe(413);
    expect(res.body.error).toBe("PAYLOAD_TOO_LARGE");
    // Read up to the limit plus the stream's read-ahead, never the 50 MB.
    expect(state.pulledBytes).toBeLessThan(256 * 1024 + 128 * 1024);
  });

  it("allows 2 MB for bulk enrollment and 256 kB elsewhere", async () => {
    const { organization, apiKey } = await createTestOrganization(db);
    const agent = await createTestAgent(db, organization.id);
    const oneMegabyte = paddedJson(1024 * 1024, { contacts: [] });
    const bulk = await post(`/agents/${agent.id}/schedule/sequences`, { key: apiKey, body: oneMegabyte });
    expect(bulk.status).toBe(400); // read and validated (no contacts), not refused for its size
    expect(bulk.body.error).not.toBe("PAYLOAD_TOO_LARGE");
    const single = await post(`/agents/${agent.id}/schedule/sequence`, { key: apiKey, body: oneMegabyte });
    expect(single.status).toBe(413);
    const underLimit = await post("/sequences/cancel", { key: apiKey, body: paddedJson(250 * 1024, { referenceKey: "k", referenceValue: "v" }) });
    expect(underLimit.body.error).not.toBe("PAYLOAD_TOO_LARGE");
    const overBulk = await post(`/agents/${agent.id}/schedule/sequences`, { key: apiKey, body: paddedJson(2 * 1024 * 1024 + 1, { contacts: [] }) });
    expect(overBulk.status).toBe(413);
    expect(overBulk.body.message).toContain("2097152 bytes");
  });

  it("takes both limits from the settings", async () => {
    const { organization, apiKey } = await createTestOrganization(db);
    const agent = await createTestAgent(db, organization.id);
    process.env.API_BODY_LIMIT_BYTES = "1000";
    process.env.API_BULK_BODY_LIMIT_BYTES = "5000";
    expect((await post("/sequences/cancel", { key: apiKey, body: paddedJson(1001) })).status).toBe(413);
    expect((await post("/sequences/cancel", { key: apiKey, body: paddedJson(900, { referenceKey: "k", referenceValue: "v" }) })).status).not.toBe(413);
    expect((await post(`/agents/${agent.id}/schedule/sequences`, { key: apiKey, body: paddedJson(4000, { contacts: [] }) })).status).toBe(400);
    expect((await post(`/agents/${agent.id}/schedule/sequences`, { key: apiKey, body: paddedJson(5001, { contacts: [] }) })).status).toBe(413);
  });

  it("refuses a request without a valid key, or to an unknown route, without reading its body", async () => {
    const missing = trackedBody(10 * 1024 * 1024);
    const noKey = await post("/sequences/cancel", { body: missing.stream });
    expect(noKey).toEqual({ status: 401, body: { error: "UNAUTHORIZED", message: expect.any(String) } });
    expect(missing.state.pulledBytes).toBe(0);

    const invalid = trackedBody(10 * 1024 * 1024);
    const badKey = await post("/sequences/cancel", { key: `ock_${"z".repeat(40)}`, body: invalid.stream });
    expect(badKey).toEqual({ status: 401, body: { error: "INVALID_API_KEY", message: expect.any(String) } });
    expect(invalid.state.pulledBytes).toBe(0);

    const { apiKey } = await createTestOrganization(db);
    const nowhere = trackedBody(10 * 1024 * 1024);
    const unknown = await post("/no/such/route", { key: apiKey, body: nowhere.stream });
    expect(unknown).toEqual({ status: 404, body: { error: "NOT_FOUND", message: expect.any(String) } });
    expect(nowhere.state.pulledBytes).toBe(0);
  });

  it("describes 413 (and 415) on every operation with a request body in the OpenAPI document", async () => {
    const doc = (await api("/openapi.json")).body;
    let withBody = 0;
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, { requestBody?: unknown; responses: Record<string, any> }>>)) {
      for (const [method, operation] of Object.entries(item)) {
        if (!operation.requestBody) {
          expect(operation.responses["413"], `${method} ${path}`).toBeUndefined();
          continue;
        }
        withBody++;
        for (const code of ["413", "415"]) {
          expect(operation.responses[code]?.content["application/json"].schema, `${method} ${path} ${code}`).toEqual({ $ref: "#/components/schemas/Error" });
        }
      }
    }
    expect(withBody).toBeGreaterThanOrEqual(5);
    expect(doc.paths["/agents/{agentId}/schedule/sequences"].post.responses["413"].description).toContain("2 MB");
    expect(doc.paths["/sequences/cancel"].post.responses["413"].description).toContain("256 kB");
  });
});

describe("content types and body shapes", () => {
  it("accepts application/json exactly, with parameters; refuses look-alikes and suffixes with 415", async () => {
    const { apiKey } = await createTestOrganization(db);
    const body = JSON.stringify({ referenceKey: "crm_ref", referenceValue: "none-such" });
    for (const type of ["application/json", "application/json; charset=utf-8", "Application/JSON;charset=UTF-8", 'application/json; charset="utf-8"']) {
      const res = await post("/sequences/cancel", { key: apiKey, body, headers: { "content-type": type } });
      expect(res.status, type).toBe(200);
    }
    for (const type of ["application/jsonp", "application/json-seq", "application/merge-patch+json", "application/vnd.api+json", "text/plain", "application/json; charset=iso-8859-1", "application/x-www-form-urlencoded"]) {
      const res = await post("/sequences/cancel", { key: apiKey, body, headers: { "content-type": type } });
      expect(res, type).toEqual({ status: 415, body: { error: "UNSUPPORTED_MEDIA_TYPE", message: expect.any(String) } });
    }
    const gzipped = await post("/sequences/cancel", { key: apiKey, body, headers: { "content-encoding": "gzip" } });
    expect(gzipped.status).toBe(415);
  });

  it("answers 400 for JSON that is not an object and for bytes that are not UTF-8", async () => {
    const { apiKey } = await createTestOrganization(db);
    for (const body of ["[]", '[{"referenceKey":"a"}]', '"text"', "42", "null", "true"]) {
      for (const path of ["/sequences/cancel", "/conversations/meetings/call.01unknown/cancel", "/recordings"]) {
        const res = await post(path, { key: apiKey, body });
        expect(res, `${path} ${body}`).toEqual({ status: 400, body: { error: "INVALID_REQUEST", message: "Invalid request: body: must be a JSON object." } });
      }
    }
    const latin1 = await post("/sequences/cancel", { key: apiKey, body: new Uint8Array([0x7b, 0x22, 0xe9, 0x22, 0x3a, 0x31, 0x7d]) });
    expect(latin1).toEqual({ status: 400, body: { error: "INVALID_REQUEST_BODY", message: expect.stringContaining("UTF-8") } });
  });
});

describe("request line, path and Host", () => {
  it("answers 405 METHOD_NOT_ALLOWED to methods the API does not know", async () => {
    for (const method of ["PROPFIND", "FOO", "PURGE"]) {
      const res = await api("/credits/usage", { method });
      expect(res.status, method).toBe(405);
      expect(res.body).toEqual({ error: "METHOD_NOT_ALLOWED", message: expect.any(String) });
      expect(res.headers.get("allow")).toBe("GET, HEAD, POST, DELETE");
    }
  });

  it("decodes percent-encoded ids once, the same way for HEAD and GET", async () => {
    const { organization, apiKey } = await createTestOrganization(db);
    const agent = await createTestAgent(db, organization.id);
    const encoded = agent.id.replace(/^a/, "%61").replace(".", "%2E");
    expect((await api(`/agents/${encoded}/schedule/sequence`, { method: "HEAD", key: apiKey })).status).toBe(200);
    expect((await api(`/agents/${encoded}/outcomes`, { key: apiKey })).status).toBe(200);
    expect((await api(`/agents/${encoded}/outcomes`, { method: "HEAD", key: apiKey })).status).toBe(200);
    // An encoded slash stays inside its segment for both: no agent has that id.
    const slash = `${agent.id}%2Fx`;
    expect((await api(`/agents/${slash}/schedule/sequence`, { method: "HEAD", key: apiKey })).status).toBe(404);
    expect((await api(`/agents/${slash}/outcomes`, { key: apiKey })).body.error).toBe("AGENT_NOT_FOUND");
  });

  it("answers a NUL or malformed percent-encoding in the path with a 4xx, never 500, for HEAD and GET alike", async () => {
    const { apiKey } = await createTestOrganization(db);
    for (const path of ["/agents/%00/schedule/sequence", "/agents/agent.%00x/schedule/sequences", "/agents/%00/outcomes", "/conversations/metadata/%00"]) {
      const head = await api(path, { method: "HEAD", key: apiKey });
      const get = await api(path, { key: apiKey });
      expect(head.status, `HEAD ${path}`).toBe(404);
      expect(get.status, `GET ${path}`).toBeGreaterThanOrEqual(400);
      expect(get.status, `GET ${path}`).toBeLessThan(500);
      expect(get.body).toEqual({ error: expect.any(String), message: expect.any(String) });
      expect(head.text).toBe("");
    }
    for (const path of ["/agents/%E0%A4%A/outcomes", "/agents/%ZZ/schedule/sequence", "/agents/%C0%80/outcomes"]) {
      const get = await api(path, { key: apiKey });
      expect(get.status, path).toBe(400);
      expect(get.body).toEqual({ error: "INVALID_REQUEST", message: expect.stringContaining("percent-encoded") });
      expect((await api(path, { method: "HEAD", key: apiKey })).status, `HEAD ${path}`).toBe(400);
    }
  });

  it("answers 400 INVALID_REQUEST to a malformed Host header instead of failing on it", async () => {
    const { apiKey } = await createTestOrganization(db);
    for (const host of ["a b", "user@evil.example", "", "localhost:99999", "localhost:3000/path", "[zz::1]"]) {
      const res = await api("/credits/usage", { key: apiKey, headers: { host } });
      expect(res, JSON.stringify(host)).toMatchObject({ status: 400, body: { error: "INVALID_REQUEST", message: expect.stringContaining("Host") } });
    }
    for (const host of ["localhost:3000", "api.example.com", "127.0.0.1:8080", "[::1]:3000", "app_1:3000"]) {
      expect((await api("/credits/usage", { key: apiKey, headers: { host } })).status, host).toBe(200);
    }
  });

  it("builds the OpenAPI document's server from the configured base URL, never from Host", async () => {
    const res = await api("/openapi.json", { headers: { host: "evil.example", "x-forwarded-host": "evil2.example" } });
    expect(res.status).toBe(200);
    expect(res.body.servers).toEqual([{ url: `${appBaseUrl()}/api/v1` }]);
    expect(res.text).not.toContain("evil");
  });

  it("answers 404 to a path that climbs out of /api/v1 once normalized", async () => {
    const res = await handleApiV1(new Request("http://localhost/api/v1/../../etc/passwd"), { db });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: "NOT_FOUND", message: expect.any(String) });
  });
});
