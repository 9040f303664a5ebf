import { describe, expect, it } from "vitest";
import { respondApiV1, type ApiResponse } from "@/server/http/api-v1";
import type { RateLimitStore } from "@/server/http/rate-limit";
import { findRestRoute } from "@/server/http/rest-procedures";
import { getOpenApiDocument } from "@/server/trpc/openapi";
import { createTestAgent, createTestOrganization } from "../factories";
import { useTestDb } from "../helpers/db";

const db = useTestDb();
const unlimitedKeys: RateLimitStore = { hit: async (_subject, _policy, nowMs) => ({ allowed: true, hits: [nowMs] }) };

/** The request exactly as given (target included: a fetch Request would normalize it first). */
async function call(target: string, options: { method?: string; key?: string; body?: string } = {}): Promise<ApiResponse & { json: any }> {
  const headers: Record<string, string> = { host: "localhost" };
  if (options.key) headers["x-api-key"] = options.key;
  if (options.body !== undefined) headers["content-type"] = "application/json";
  const answer = await respondApiV1(
    {
      method: options.method ?? "GET",
      target,
      header: (name) => headers[name] ?? null,
      readBody: async () => (options.body === undefined ? null : new TextEncoder().encode(options.body)),
    },
    { db, socketAddress: "198.51.100.7", rateLimits: { keyStore: unlimitedKeys } },
  );
  return { ...answer, json: answer.body === null ? null : JSON.parse(answer.body) };
}

describe("the /api/v1 route table (server/http/rest-procedures.ts)", () => {
  it("routes every operation of the OpenAPI document to its own template", () => {
    const paths = getOpenApiDocument().paths ?? {};
    let checked = 0;
    for (const [template, operations] of Object.entries(paths)) {
      for (const method of Object.keys(operations ?? {})) {
        if (method === "head") continue;
        const concrete = template.replace(/\{[^}]+\}/g, "some.value");
        expect(findRestRoute(method.toUpperCase(), concrete)?.template, `${method} ${template}`).toBe(template);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(15);
    expect(findRestRoute("GET", "/no/such/route")).toBeUndefined();
    // Templates match in any case and with a trailing slash, as trpc-to-openapi matches them.
    expect(findRestRoute("GET", "/AGENTS/agent.x/Outcomes/")?.template).toBe("/agents/{agentId}/outcomes");
  });
});

describe("a request's input, built as trpc-to-openapi's handler builds it", () => {
  it("reads the query string: a value given once is a string, a repeated key an array, + a space, the fragment dropped", async () => {
    const { organization, apiKey } = await createTestOrganization(db);
    const ok = await call(`/api/v1/agents?orgId=${organization.orgId}&page=1`, { key: apiKey });
    expect(ok.status, ok.body ?? "").toBe(200);
    expect(ok.json.pagination.page).toBe(1);

    const badPage = await call(`/api/v1/agents?orgId=${organization.orgId}&page=abc`, { key: apiKey });
    expect(badPage.status).toBe(400);
    expect(badPage.json.error).toBe("INVALID_REQUEST");
    expect(badPage.json.message).toContain("page");

    const repeated = await call(`/api/v1/agents?orgId=${organization.orgId}&orgId=${organization.orgId}`, { key: apiKey });
    expect(repeated.status).toBe(400);
    expect(repeated.json.message).toContain("orgId");

    const spaced = await call(`/api/v1/agents?orgId=a+b`, { key: apiKey });
    expect(spaced.status).toBe(403);
    expect(spaced.json.error).toBe("ORG_MISMATCH");

    const fragment = await call(`/api/v1/agents?orgId=${organization.orgId}#&page=abc`, { key: apiKey });
    expect(fragment.status, fragment.body ?? "").toBe(200);
  });

  it("takes path parameters over query keys of the same name", async () => {
    const { organization, apiKey } = await createTestOrganization(db);
    const agent = await createTestAgent(db, organization.id, { outcomes: [{ name: "Booked" }] });
    const res = await call(`/api/v1/agents/${agent.id}/outcomes?agentId=agent.someone-else`, { key: apiKey });
    expect(res.status, res.body ?? "").toBe(200);
    expect(res.json.outcomes.map((outcome: { name: string }) => outcome.name)).toEqual(["Booked"]);
  });

  it("treats query keys named like Object.prototype's members as plain keys (was a 500), and refuses __proto__ with a 400", async () => {
    const { organization, apiKey } = await createTestOrganization(db);
    const plain = await call(`/api/v1/agents?orgId=${organization.orgId}&constructor=1&toString=2&hasOwnProperty=3`, { key: apiKey });
    expect(plain.status, plain.body ?? "").toBe(200);
    const proto = await call(`/api/v1/agents?orgId=${organization.orgId}&__proto__=1`, { key: apiKey });
    expect(proto.status, proto.body ?? "").toBe(400);
    expect(proto.json).toEqual({ error: "INVALID_REQUEST", message: expect.stringContaining("__proto__"), details: expect.any(Object) });
  });

  it("DELETE takes its input from the path and query: its JSON body is checked but not used", async () => {
    const { apiKey } = await createTestOrganization(db);
    const added = await call("/api/v1/suppressions", { method: "POST", key: apiKey, body: JSON.stringify({ phoneNumbers: ["+14155550171"] }) });
    expect(added.status, added.body ?? "").toBe(200);
    const badBody = await call("/api/v1/suppressions/%2B14155550171", { method: "DELETE", key: apiKey, body: "{" });
    expect(badBody.json.error).toBe("INVALID_REQUEST_BODY");
    const removed = await call("/api/v1/suppressions/%2B14155550171", { method: "DELETE", key: apiKey, body: JSON.stringify({ phoneNumber: "+12125550142" }) });
    expect(removed.status, removed.body ?? "").toBe(200);
    expect(removed.json).toEqual({ success: true });
    const again = await call("/api/v1/suppressions/%2B14155550171", { method: "DELETE", key: apiKey });
    expect(again.status).toBe(404);
    expect(again.json.error).toBe("SUPPRESSION_NOT_FOUND");
  });

  it("answers a procedure's error as {error, message} only, with the status of the error table", async () => {
    const { apiKey } = await createTestOrganization(db);
    const res = await call("/api/v1/agents/agent.does-not-exist/outcomes", { key: apiKey });
    expect(res.status).toBe(404);
    expect(Object.keys(res.json).sort()).toEqual(["error", "message"]);
    expect(res.json.error).toBe("AGENT_NOT_FOUND");
    expect(res.headers["content-type"]).toBe("application/json");
    expect(res.headers["ratelimit"]).toMatch(/^limit=10, remaining=\d+, reset=\d+$/);
  });
});
