import { describe, expect, it } from "vitest";
import { and, eq } from "drizzle-orm";
import { inputVariableDefinitions, extractedVariableDefinitions } from "@/db/schema";
import { createTestAgent, createTestOrganization } from "../factories";
import { apiClient } from "../helpers/api";
import { useTestDb } from "../helpers/db";

const db = useTestDb();
const api = apiClient(db);

describe("GET /agents", () => {
  it("pages 120 agents in fixed pages of 100, listing every status", async () => {
    const { organization, apiKey } = await createTestOrganization(db);
    const statuses = ["ACTIVE", "PAUSED", "ARCHIVED"] as const;
    const base = Date.now() - 1_000_000;
    const created: string[] = [];
    for (let i = 0; i < 120; i++) {
      const agent = await createTestAgent(db, organization.id, { name: `Agent ${i}`, status: statuses[i % 3], createdAt: new Date(base + i * 1000) });
      created.push(agent.id);
    }
    const page1 = await api("/agents", { key: apiKey, query: { orgId: organization.orgId } });
    expect(page1.status).toBe(200);
    expect(page1.body.agents).toHaveLength(100);
    expect(page1.body.pagination).toEqual({ page: 1, pageSize: 100, totalItems: 120, totalPages: 2, hasMore: true });
    const page2 = await api("/agents", { key: apiKey, query: { orgId: organization.orgId, page: 2 } });
    expect(page2.body.agents).toHaveLength(20);
    expect(page2.body.pagination).toEqual({ page: 2, pageSize: 100, totalItems: 120, totalPages: 2, hasMore: false });
    const ids = [...page1.body.agents, ...page2.body.agents].map((a: { agentId: string }) => a.agentId);
    expect(ids).toEqual(created);
    expect(new Set(page1.body.agents.map((a: { status: string }) => a.status))).toEqual(new Set(statuses));
    // The spec's fields, plus the additive calling limits (issue 17) with their defaults.
    expect(page1.body.agents[0]).toEqual({
      agentId: created[0],
      name: "Agent 0",
      status: "ACTIVE",
      callingLimits: { maxConcurrentCalls: null, dailyCreditCap: null, autoPause: { enabled: true, windowCalls: 50, failurePercent: 30 } },
      pauseReason: null,
    });
    const page3 = await api("/agents", { key: apiKey, query: { orgId: organization.orgId, page: 3 } });
    expect(page3.body.agents).toEqual([]);
    expect(page3.body.pagination.hasMore).toBe(false);
  });

  it("requires orgId matching the key's organization (403 ORG_MISMATCH)", async () => {
    const mine = await createTestOrganization(db);
    const other = await createTestOrganization(db);
    const res = await api("/agents", { key: mine.apiKey, query: { orgId: other.organization.orgId } });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: "ORG_MISMATCH", message: expect.any(String) });
    expect((await api("/agents", { key: mine.apiKey, query: { orgId: "" } })).status).toBe(400);
  });

  it("rejects bad page values with 400", async () => {
    const { organization, apiKey } = await createTestOrganization(db);
    for (const page of ["0", "-1", "1.5", "abc"]) {
      const res = await api("/agents", { key: apiKey, query: { orgId: organization.orgId, page } });
      expect(res.status, page).toBe(400);
      expect(res.body.error).toBe("INVALID_REQUEST");
    }
  });
});

describe("agent definitions", () => {
  it("hides deleted input variables", async () => {
    const { organization, apiKey } = await createTestOrganization(db);
    const agent = await createTestAgent(db, organization.id, {
      inputVariables: [{ slug: "company_name", required: true, description: "Company" }, { slug: "old_one" }],
    });
    await db
      .update(inputVariableDefinitions)
      .set({ deletedAt: new Date() })
      .where(and(eq(inputVariableDefinitions.agentId, agent.id), eq(inputVariableDefinitions.slug, "old_one")));
    const res = await api(`/agents/${agent.id}/input-variables`, { key: apiKey });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ inputVariables: [{ slug: "company_name", displayName: "Company Name", description: "Company" }] });
  });

  it("returns only non-deleted customer-defined extracted variables with their type configuration", async () => {
    const { organization, apiKey } = await createTestOrganization(db);
    const agent = await createTestAgent(db, organization.id, {
      extractedVariables: [
        { slug: "interest", type: "DROPDOWN", dropdownOptions: ["high", "low"] },
        { slug: "callback_at", type: "DATE/TIME", datetimeFormat: "yyyy-MM-dd HH:mm", formatDatetimeInUtc: true },
        { slug: "notes", type: "STRING" },
        { slug: "sentiment", type: "STRING", systemDefault: true },
        { slug: "gone", type: "NUMBER" },
      ],
    });
    await db
      .update(extractedVariableDefinitions)
      .set({ deletedAt: new Date() })
      .where(and(eq(extractedVariableDefinitions.agentId, agent.id), eq(extractedVariableDefinitions.slug, "gone")));
    const res = await api(`/agents/${agent.id}/extracted-variables`, { key: apiKey });
    expect(res.status).toBe(200);
    expect(res.body.extractedVariables).toEqual([
      { slug: "interest", displayName: "Interest", description: "", type: "DROPDOWN", dropdownOptions: ["high", "low"] },
      { slug: "callback_at", displayName: "Callback At", description: "", type: "DATE/TIME", datetimeFormat: "yyyy-MM-dd HH:mm", formatDatetimeInUtc: true },
      { slug: "notes", displayName: "Notes", description: "", type: "STRING" },
    ]);
  });

  it("returns only enabled, customer-defined outcomes", async () => {
    const { organization, apiKey } = await createTestOrganization(db);
    const agent = await createTestAgent(db, organization.id, {
      outcomes: [{ name: "Booked" }, { name: "Disabled", enabled: false }, { name: "System", customerDefined: false }, { name: "Callback" }],
    });
    const res = await api(`/agents/${agent.id}/outcomes`, { key: apiKey });
    expect(res.status).toBe(200);
    expect(res.body.outcomes.map((o: { name: string }) => o.name)).toEqual(["Booked", "Callback"]);
    expect(res.body.outcomes[0].outcomeDefinitionId).toMatch(/^outcome\./);
    const none = await createTestAgent(db, organization.id, { outcomes: [] });
    expect((await api(`/agents/${none.id}/outcomes`, { key: apiKey })).body).toEqual({ outcomes: [] });
  });
});
