import { describe, expect, it } from "vitest";
import { createTestAgent, createTestOrganization, createTestTransaction, setMonthAllocation } from "../factories";
import { apiClient } from "../helpers/api";
import { useTestDb } from "../helpers/db";

const db = useTestDb();
// "Today" for these tests: 2026-11-15 12:00 UTC.
const NOW = new Date("2026-11-15T12:00:00.000Z");
const api = apiClient(db, { now: () => NOW });

async function orgWithLedger() {
  const { organization, apiKey } = await createTestOrganization(db, { monthlyCreditAllocation: 1000 });
  const a = await createTestAgent(db, organization.id, { name: "Alpha" });
  const b = await createTestAgent(db, organization.id, { name: "Beta" });
  const tx = (agentId: string | null, credits: number, iso: string) =>
    createTestTransaction(db, { organizationId: organization.id, agentId, credits, createdAt: new Date(iso) });
  await tx(a.id, 5, "2026-10-31T23:59:59.999Z"); // last instant of October
  await tx(a.id, 7, "2026-11-01T00:00:00.000Z"); // first instant of November
  await tx(b.id, 3, "2026-11-10T08:00:00.000Z");
  await tx(b.id, 2, "2026-11-15T11:00:00.000Z");
  await tx(a.id, 11, "2025-11-30T23:59:59.999Z");
  await tx(a.id, 13, "2025-12-01T00:00:00.000Z");
  return { organization, apiKey, a, b, tx };
}

describe("GET /credits/usage, month mode", () => {
  it("defaults to the current UTC month with allocation, remaining and percentage", async () => {
    const { apiKey, a, b } = await orgWithLedger();
    const res = await api("/credits/usage", { key: apiKey });
    expect(res.status).toBe(200);
    expect(res.body.period).toEqual({ type: "month", startDate: "2026-11-01", endDate: "2026-11-30", month: "2026-11" });
    expect(res.body.organization).toEqual({ allocatedCredits: 1000, spentCredits: 12, remainingCredits: 988, percentageUsed: 1.2 });
    expect(res.body.agents).toEqual([
      { agentId: a.id, agentName: "Alpha", spentCredits: 7, transactionCount: 1 },
      { agentId: b.id, agentName: "Beta", spentCredits: 5, transactionCount: 2 },
    ]);
  });

  it("counts the month's last millisecond in that month and uses a month's allocation override", async () => {
    const { organization, apiKey, a } = await orgWithLedger();
    await setMonthAllocation(db, organization.id, "2026-10", 50);
    const res = await api("/credits/usage", { key: apiKey, query: { month: "2026-10" } });
    expect(res.status).toBe(200);
    expect(res.body.period).toEqual({ type: "month", startDate: "2026-10-01", endDate: "2026-10-31", month: "2026-10" });
    expect(res.body.organization).toEqual({ allocatedCredits: 50, spentCredits: 5, remainingCredits: 45, percentageUsed: 10 });
    expect(res.body.agents).toEqual([{ agentId: a.id, agentName: "Alpha", spentCredits: 5, transactionCount: 1 }]);
    const feb = await api("/credits/usage", { key: apiKey, query: { month: "2026-02" } });
    expect(feb.body.period.endDate).toBe("2026-02-28");
    expect(feb.body.organization.spentCredits).toBe(0);
    expect(feb.body.agents).toEqual([]);
  });

  it("keeps the organization figure authoritative when an agent row is gone", async () => {
    const { apiKey, tx } = await orgWithLedger();
    await tx(null, 4, "2026-11-02T00:00:00.000Z");
    const res = await api("/credits/usage", { key: apiKey });
    expect(res.body.organization.spentCredits).toBe(16);
    expect(res.body.agents.reduce((sum: number, agent: { spentCredits: number }) => sum + agent.spentCredits, 0)).toBe(12);
  });

  it("refuses future months and malformed months", async () => {
    const { apiKey } = await orgWithLedger();
    for (const month of ["2026-12", "2027-01", "2026-13", "2026-1", "26-11", "2026-00", "november"]) {
      const res = await api("/credits/usage", { key: apiKey, query: { month } });
      expect(res.status, month).toBe(400);
      expect(res.body.error).toBe("INVALID_REQUEST");
      expect(res.body.message).toContain("month");
    }
  });
});

describe("GET /credits/usage, range mode", () => {
  it("returns nulls and spent = sum of agents over an inclusive UTC range", async () => {
    const { apiKey, a, tx } = await orgWithLedger();
    await tx(null, 100, "2026-11-05T00:00:00.000Z");
    const res = await api("/credits/usage", { key: apiKey, query: { startDate: "2025-11-30", endDate: "2025-11-30" } });
    expect(res.status).toBe(200);
    expect(res.body.period).toEqual({ type: "range", startDate: "2025-11-30", endDate: "2025-11-30", month: null });
    expect(res.body.organization).toEqual({ allocatedCredits: null, spentCredits: 11, remainingCredits: null, percentageUsed: null });
    expect(res.body.agents).toEqual([{ agentId: a.id, agentName: "Alpha", spentCredits: 11, transactionCount: 1 }]);
    const wide = await api("/credits/usage", { key: apiKey, query: { startDate: "2026-10-31", endDate: "2026-11-15" } });
    expect(wide.body.organization.spentCredits).toBe(17);
    const sum = wide.body.agents.reduce((total: number, agent: { spentCredits: number }) => total + agent.spentCredits, 0);
    expect(wide.body.organization.spentCredits).toBe(sum);
  });

  it("allows exactly 366 days and today as the end date", async () => {
    const { apiKey } = await orgWithLedger();
    expect((await api("/credits/usage", { key: apiKey, query: { startDate: "2024-01-01", endDate: "2024-12-31" } })).status).toBe(200);
    expect((await api("/credits/usage", { key: apiKey, query: { startDate: "2025-11-15", endDate: "2026-11-15" } })).status).toBe(200);
  });

  it("enforces every range rule with 400 INVALID_REQUEST", async () => {
    const { apiKey } = await orgWithLedger();
    const cases: Array<[Record<string, string>, string]> = [
      [{ startDate: "2026-11-01" }, "endDate"],
      [{ endDate: "2026-11-01" }, "startDate"],
      [{ month: "2026-11", startDate: "2026-11-01", endDate: "2026-11-02" }, "month"],
      [{ month: "2026-11", endDate: "2026-11-02" }, "month"],
      [{ startDate: "2026-11-10", endDate: "2026-11-09" }, "startDate"],
      [{ startDate: "2025-11-14", endDate: "2026-11-15" }, "366"],
      [{ startDate: "2026-11-01", endDate: "2026-11-16" }, "future"],
      [{ startDate: "2026-02-30", endDate: "2026-03-01" }, "startDate"],
      [{ startDate: "2026-1-01", endDate: "2026-03-01" }, "startDate"],
      [{ startDate: "2026-01-01", endDate: "20260301" }, "endDate"],
    ];
    for (const [query, fragment] of cases) {
      const res = await api("/credits/usage", { key: apiKey, query });
      expect(res.status, JSON.stringify(query)).toBe(400);
      expect(res.body).toEqual({ error: "INVALID_REQUEST", message: expect.stringContaining(fragment) });
    }
  });

  it("never counts another organization's ledger", async () => {
    const { apiKey } = await orgWithLedger();
    const other = await orgWithLedger();
    await other.tx(other.a.id, 500, "2026-11-03T00:00:00.000Z");
    const res = await api("/credits/usage", { key: apiKey });
    expect(res.body.organization.spentCredits).toBe(12);
    expect(res.body.agents.map((agent: { agentId: string }) => agent.agentId)).not.toContain(other.a.id);
  });
});
