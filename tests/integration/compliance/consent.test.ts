import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { memberships, sequences, type MemberRole } from "@/db/schema";
import { materializeBulkBatch } from "@/server/services/enrollment/materialize-bulk-batch";
import { useTestDb } from "../../helpers/db";
import { createOrgWithRoles, createUser, sessionCaller } from "../dashboard/helpers";
import { patientApiClient, setupEnrollment } from "../enrollment/helpers";

const db = useTestDb();
const api = patientApiClient(db);

const consent = {
  type: "express_written",
  capturedAt: "2026-10-02T09:30:00-04:00",
  source: "https://example.com/signup form #3",
  evidenceUrl: "https://evidence.example.com/forms/123.pdf",
};
const stored = { ...consent, capturedAt: "2026-10-02T13:30:00.000Z" };

const person = (i: number, extra: Record<string, unknown> = {}) => ({
  name: `Contact ${i}`,
  phoneNumber: `+1415555${String(2000 + i).padStart(4, "0")}`,
  company_name: `Company ${i}`,
  ...extra,
});

/** An enrollment-ready organization with a signed-in user per role. */
async function setup() {
  const setupResult = await setupEnrollment(db);
  const people = {} as Record<MemberRole, { userId: string; email: string }>;
  for (const role of ["admin", "support", "member"] as const) {
    const user = await createUser(db);
    await db.insert(memberships).values({ organizationId: setupResult.organization.id, userId: user.userId, role });
    people[role] = user;
  }
  const as = (role: MemberRole) => sessionCaller(db, people[role], setupResult.organization.orgId);
  return { ...setupResult, as };
}

const enrollOne = (key: string, agentId: string, body: unknown) => api(`/agents/${agentId}/schedule/sequence`, { method: "POST", key, body });
const enrollMany = (key: string, agentId: string, body: unknown) => api(`/agents/${agentId}/schedule/sequences`, { method: "POST", key, body });

describe("consent records at enrollment", () => {
  it("stores a single contact's consent with the sequence and returns it (capturedAt in UTC); none → null", async () => {
    const { apiKey, agent } = await setup();
    const res = await enrollOne(apiKey, agent.id, person(1, { consent }));
    expect(res.status, res.text).toBe(201);
    expect(res.body.sequence.consent).toEqual(stored);
    const [row] = await db.select().from(sequences).where(eq(sequences.id, res.body.sequence.sequenceId));
    expect(row!.consent).toEqual(stored);
    // consent is not a custom input variable.
    expect(row!.customInputVariables).toEqual({ company_name: "Company 1" });

    const without = await enrollOne(apiKey, agent.id, person(2));
    expect(without.status).toBe(201);
    expect(without.body.sequence.consent).toBeNull();

    // Conversation metadata carries it on each call (additive field).
    const metadata = await api(`/conversations/metadata/${encodeURIComponent(res.body.sequence.sequenceId)}`, { key: apiKey });
    expect(metadata.status, metadata.text).toBe(200);
    expect(metadata.body.metadata.length).toBeGreaterThan(0);
    expect(metadata.body.metadata.every((call: { consent: unknown }) => JSON.stringify(call.consent) === JSON.stringify(stored))).toBe(true);
    const none = await api(`/conversations/metadata/${encodeURIComponent(without.body.sequence.sequenceId)}`, { key: apiKey });
    expect(none.body.metadata[0].consent).toBeNull();
  });

  it("stores bulk contacts' consent; a malformed record rejects its contact alone (INVALID_CONSENT)", async () => {
    const { apiKey, agent } = await setup();
    const contacts = [
      person(1, { consent }),
      person(2, { consent: { ...consent, type: "implied" } }),
      person(3, { consent: { ...consent, capturedAt: "2099-01-01T00:00:00Z" } }),
      person(4, { consent: { ...consent, evidenceUrl: "javascript:alert(1)" } }),
      person(5, { consent: { ...consent, extra: "x" } }),
      person(6, { consent: "yes" }),
      person(7, { consent: { type: "express", capturedAt: "2026-10-02T09:30:00Z", source: "   " } }),
      person(8, { consent: { type: "other", capturedAt: "2026-10-02", source: "call" } }),
      person(9),
    ];
    const res = await enrollMany(apiKey, agent.id, { contacts });
    expect(res.status, res.text).toBe(202);
    expect(res.body.accepted).toBe(2);
    expect(res.body.rejected.map((r: { index: number; reason: string }) => [r.index, r.reason])).toEqual(
      [1, 2, 3, 4, 5, 6, 7].map((index) => [index, "INVALID_CONSENT"]),
    );
    await materializeBulkBatch(db, { batchId: res.body.batchId });
    const rows = await db.select({ phoneNumber: sequences.phoneNumber, consent: sequences.consent }).from(sequences).where(eq(sequences.agentId, agent.id));
    expect(rows.sort((a, b) => a.phoneNumber.localeCompare(b.phoneNumber))).toEqual([
      { phoneNumber: "+14155552001", consent: stored },
      { phoneNumber: "+14155552009", consent: null },
    ]);
  });

  it("refuses a malformed record on single enrollment with 400 INVALID_CONSENT", async () => {
    const { apiKey, agent } = await setup();
    const res = await enrollOne(apiKey, agent.id, person(1, { consent: { ...consent, source: "x".repeat(1001) } }));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: "INVALID_CONSENT", message: expect.stringContaining("source") });
  });
});

describe("the organization's require-consent setting", () => {
  it("makes a missing record 400 MISSING_CONSENT (single) and a per-contact MISSING_CONSENT (bulk and preview)", async () => {
    const { apiKey, agent, as } = await setup();
    expect(await as("member").organizations.callingSettings()).toEqual({ requireConsent: false, maxConcurrentCalls: null });
    await expect(as("support").organizations.updateCallingSettings({ requireConsent: true })).rejects.toMatchObject({ code: "FORBIDDEN" });
    expect(await as("admin").organizations.updateCallingSettings({ requireConsent: true })).toEqual({ requireConsent: true, maxConcurrentCalls: null });

    const single = await enrollOne(apiKey, agent.id, person(1));
    expect(single.status).toBe(400);
    expect(single.body).toEqual({ error: "MISSING_CONSENT", message: expect.any(String), details: { reason: "MISSING_CONSENT" } });
    expect((await enrollOne(apiKey, agent.id, person(1, { consent }))).status).toBe(201);

    const body = { contacts: [person(2), person(3, { consent })] };
    const previewed = await api(`/agents/${agent.id}/schedule/sequences/preview`, { method: "POST", key: apiKey, body });
    const bulk = await enrollMany(apiKey, agent.id, body);
    expect(bulk.status).toBe(202);
    expect(bulk.body.rejected).toEqual([{ index: 0, phoneNumber: "+14155552002", reason: "MISSING_CONSENT", error: expect.any(String) }]);
    expect(previewed.body.rejected).toEqual(bulk.body.rejected);
  });

  it("refuses out-of-range settings and keeps settings per organization", async () => {
    const { as } = await setup();
    const other = await createOrgWithRoles(db);
    await expect(as("admin").organizations.updateCallingSettings({ maxConcurrentCalls: 0 })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(as("admin").organizations.updateCallingSettings({ maxConcurrentCalls: 10_001 })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    expect(await as("admin").organizations.updateCallingSettings({ maxConcurrentCalls: 25, requireConsent: true })).toEqual({ requireConsent: true, maxConcurrentCalls: 25 });
    expect(await other.as("admin").organizations.callingSettings()).toEqual({ requireConsent: false, maxConcurrentCalls: null });
    expect(await as("admin").organizations.updateCallingSettings({ maxConcurrentCalls: null })).toEqual({ requireConsent: true, maxConcurrentCalls: null });
  });
});

describe("consent export (console)", () => {
  it("lists the records of contacts enrolled in the range, in enrollment order; another organization gets nothing", async () => {
    const { apiKey, agent, as } = await setup();
    for (let i = 1; i <= 3; i += 1) expect((await enrollOne(apiKey, agent.id, person(i, i === 2 ? {} : { consent }))).status).toBe(201);
    const from = new Date(Date.now() - 3600_000).toISOString();
    const to = new Date(Date.now() + 3600_000).toISOString();
    const exported = await as("member").consent.export({ from, to, after: null });
    expect(exported.nextAfter).toBeNull();
    expect(exported.records.map((r) => [r.phoneNumber, r.consent])).toEqual([
      ["+14155552001", stored],
      ["+14155552003", stored],
    ]);
    expect(exported.records[0]).toMatchObject({ agentId: agent.id, name: "Contact 1", enrolledAt: expect.any(String), sequenceId: expect.any(String) });

    const earlier = await as("member").consent.export({ from: "2026-01-01T00:00:00Z", to: from, after: null });
    expect(earlier.records).toEqual([]);
    const other = await createOrgWithRoles(db);
    expect((await other.as("admin").consent.export({ from, to, after: null })).records).toEqual([]);
  });

  it("refuses a reversed or over-long range and malformed instants", async () => {
    const { as } = await setup();
    await expect(as("member").consent.export({ from: "2026-02-01T00:00:00Z", to: "2026-01-01T00:00:00Z", after: null })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(as("member").consent.export({ from: "2024-01-01T00:00:00Z", to: "2026-01-01T00:00:00Z", after: null })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(as("member").consent.export({ from: "yesterday", to: "2026-01-01T00:00:00Z", after: null })).rejects.toMatchObject({ code: "BAD_REQUEST" });
  });
});
