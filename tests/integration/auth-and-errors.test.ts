import { afterAll, describe, expect, it } from "vitest";
import { createDb } from "@/db";
import { revokeApiKey, createApiKey } from "@/server/services/api-keys/manage-api-keys";
import { createTestAgent, createTestOrganization } from "../factories";
import { apiClient } from "../helpers/api";
import { useTestDb } from "../helpers/db";

const db = useTestDb();
const api = apiClient(db);

describe("authentication", () => {
  it("answers 401 UNAUTHORIZED without a key on every endpoint", async () => {
    for (const path of ["/credits/usage", "/agents?orgId=x", "/agents/agent.x/outcomes", "/agents/agent.x/input-variables", "/agents/agent.x/extracted-variables"]) {
      const res = await api(path);
      expect(res.status, path).toBe(401);
      expect(res.body).toEqual({ error: "UNAUTHORIZED", message: expect.any(String) });
    }
  });

  it("answers 401 INVALID_API_KEY for an unknown, malformed or revoked key", async () => {
    const { organization, apiKey } = await createTestOrganization(db);
    expect((await api("/credits/usage", { key: "ock_" + "a".repeat(40) })).body.error).toBe("INVALID_API_KEY");
    expect((await api("/credits/usage", { key: "nonsense" })).body.error).toBe("INVALID_API_KEY");
    expect((await api("/credits/usage", { key: apiKey.slice(0, -1) + (apiKey.endsWith("a") ? "b" : "a") })).status).toBe(401);
    const second = await createApiKey(db, { organizationId: organization.id, name: "second" });
    expect((await api("/credits/usage", { key: second.key })).status).toBe(200);
    await revokeApiKey(db, { organizationId: organization.id, keyId: second.id, now: new Date() });
    const revoked = await api("/credits/usage", { key: second.key });
    expect(revoked.status).toBe(401);
    expect(revoked.body.error).toBe("INVALID_API_KEY");
    expect((await api("/credits/usage", { key: apiKey })).status).toBe(200);
  });

  it("never shows another organization's agent (404 on every agent endpoint)", async () => {
    const mine = await createTestOrganization(db);
    const other = await createTestOrganization(db);
    const foreign = await createTestAgent(db, other.organization.id, {
      inputVariables: [{ slug: "secret_var" }],
      outcomes: [{ name: "Secret outcome" }],
    });
    for (const suffix of ["outcomes", "input-variables", "extracted-variables"]) {
      const res = await api(`/agents/${foreign.id}/${suffix}`, { key: mine.apiKey });
      expect(res.status, suffix).toBe(404);
      expect(res.body.error).toBe("AGENT_NOT_FOUND");
      expect(res.text).not.toContain("Secret");
      const unknown = await api(`/agents/agent.01doesnotexist/${suffix}`, { key: mine.apiKey });
      expect(unknown.status).toBe(404);
      expect(unknown.body).toEqual({ error: "AGENT_NOT_FOUND", message: expect.any(String) });
    }
    const list = await api("/agents", { key: mine.apiKey, query: { orgId: mine.organization.orgId } });
    expect(list.body.agents.map((a: { agentId: string }) => a.agentId)).not.toContain(foreign.id);
  });
});

describe("error model", () => {
  it("shapes unknown routes and methods as {error, message}", async () => {
    const { apiKey } = await createTestOrganization(db);
    const unknown = await api("/nope", { key: apiKey });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error: "NOT_FOUND", message: expect.any(String) });
    const wrongMethod = await api("/credits/usage", { key: apiKey, method: "DELETE" });
    expect(wrongMethod.status).toBe(404);
    expect(wrongMethod.body.error).toBe("NOT_FOUND");
    const noKey = await api("/nope");
    expect(noKey.body).toEqual({ error: "NOT_FOUND", message: expect.any(String) });
  });

  it("answers HEAD on unknown paths with 404, not the library's 204", async () => {
    const res = await api("/does/not/exist", { method: "HEAD" });
    expect(res.status).toBe(404);
    expect(res.text).toBe("");
  });

  it("answers HEAD on the scheduling paths: 200 with a valid key and agent, 401/404 otherwise", async () => {
    const { organization, apiKey } = await createTestOrganization(db);
    const agent = await createTestAgent(db, organization.id);
    const other = await createTestOrganization(db);
    for (const suffix of ["sequence", "sequences"]) {
      const ok = await api(`/agents/${agent.id}/schedule/${suffix}`, { method: "HEAD", key: apiKey });
      expect(ok.status).toBe(200);
      expect(ok.text).toBe("");
      expect((await api(`/agents/${agent.id}/schedule/${suffix}`, { method: "HEAD" })).status).toBe(401);
      expect((await api(`/agents/${agent.id}/schedule/${suffix}`, { method: "HEAD", key: "ock_" + "b".repeat(40) })).status).toBe(401);
      expect((await api(`/agents/${agent.id}/schedule/${suffix}`, { method: "HEAD", key: other.apiKey })).status).toBe(404);
      expect((await api(`/agents/agent.unknown/schedule/${suffix}`, { method: "HEAD", key: apiKey })).status).toBe(404);
    }
  });

  it("validation failures are 400 INVALID_REQUEST naming the field", async () => {
    const { organization, apiKey } = await createTestOrganization(db);
    const res = await api("/agents", { key: apiKey, query: { orgId: organization.orgId, page: 0 } });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("INVALID_REQUEST");
    expect(res.body.message).toContain("page");
    const missing = await api("/agents", { key: apiKey });
    expect(missing.status).toBe(400);
    expect(missing.body.message).toContain("orgId");
  });
});

describe("unexpected errors", () => {
  const broken = createDb("postgres://nobody:secret-password@127.0.0.1:1/missing", { max: 1 });
  afterAll(() => broken.close());

  it("answers 500 INTERNAL_SERVER_ERROR without leaking internals", async () => {
    const res = await apiClient(broken.db)("/credits/usage", { key: "ock_" + "c".repeat(40) });
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: "INTERNAL_SERVER_ERROR", message: "An unexpected error occurred. Retry with backoff." });
    expect(res.text).not.toMatch(/ECONNREFUSED|secret-password|127\.0\.0\.1|stack/i);
  });
});
