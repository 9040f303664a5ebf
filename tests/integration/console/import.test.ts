import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { bulkBatches, optOuts, sequences } from "@/db/schema";
import { materializeBulkBatch } from "@/server/services/enrollment/materialize-bulk-batch";
import { apiClient } from "../../helpers/api";
import { useTestDb } from "../../helpers/db";
import { createTestAgent, createTestOrganization } from "../../factories";
import { apiKeyCaller, consoleCaller } from "./helpers";

const db = useTestDb();
const api = apiClient(db);

const window = { dayOffset: 0, timeWindow: { startTime: 0, endTime: 1440 }, timezoneSource: "contact" as const };

async function importSetup() {
  const { organization, apiKey } = await createTestOrganization(db, { monthlyCreditAllocation: 10_000 });
  const agent = await createTestAgent(db, organization.id, {
    name: "Importer",
    timezones: ["America/New_York"],
    steps: [{ stepType: "CALL", delaySeconds: 0, delaySecondsMax: null, executionWindowConfig: window }],
    inputVariables: [{ slug: "company_name", displayName: "Company", description: "", required: true }],
  });
  const admin = await consoleCaller(db, organization.id, "admin");
  return { organization, apiKey, agent, admin };
}

const future = new Date(Date.now() + 10 * 86_400_000).toISOString();

/** Rows as the console builds them from a CSV: strings, empty cells left out, variables in customVariables. */
const sampleRows = (): Array<Record<string, unknown>> => [
  { name: "Ada Lovelace", phoneNumber: "+12015550101", customVariables: { company_name: "Analytical" } },
  { phoneNumber: "+12015550102", customVariables: { company_name: "No Name Inc" } },
  { name: "Bad Phone", phoneNumber: "12345", customVariables: { company_name: "X" } },
  { name: "Bad Zone", phoneNumber: "+12015550103", timezone: "Mars/Olympus", customVariables: { company_name: "X" } },
  { name: "Past", phoneNumber: "+12015550104", scheduledAt: "2020-01-01T10:00:00Z", customVariables: { company_name: "X" } },
  { name: "No Company", phoneNumber: "+12015550105" },
  { name: "Bad Email", phoneNumber: "+12015550106", toEmailAddress: "nope", customVariables: { company_name: "X" } },
  { name: "Opted Out", phoneNumber: "+12015550107", customVariables: { company_name: "X" } },
  { name: "Formatted", phoneNumber: "+1 (201) 555-0108", scheduledAt: future, customVariables: { company_name: "Y", crm_ref: "C-8" } },
  { name: "Missing Phone", customVariables: { company_name: "X" } },
];

describe("enrollment.validateImportRows", () => {
  it("rejects exactly the rows the bulk API rejects, with the same reasons", async () => {
    const { organization, apiKey, agent, admin } = await importSetup();
    await db.insert(optOuts).values({ organizationId: organization.id, phoneNumber: "+12015550107" });
    const rows = sampleRows();

    const preview = await admin.enrollment.validateImportRows({ agentId: agent.id, rows });
    const bulk = await api(`/agents/${agent.id}/schedule/sequences`, { method: "POST", key: apiKey, body: { contacts: rows } });
    expect(bulk.status).toBe(202);

    const previewRejected = preview.rows.flatMap((row) => (row.ok ? [] : [{ index: row.index, reason: row.reason, error: row.error }]));
    const apiRejected = (bulk.body.rejected as Array<{ index: number; reason: string; error: string }>).map(({ index, reason, error }) => ({ index, reason, error }));
    expect(previewRejected).toEqual(apiRejected);
    expect(previewRejected.map((r) => r.reason)).toEqual([
      "MISSING_NAME",
      "INVALID_PHONE_NUMBER",
      "INVALID_TIMEZONE",
      "INVALID_SCHEDULED_AT",
      "MISSING_INPUT_VARIABLE",
      "MISSING_EMAIL",
      "OPTED_OUT",
      "MISSING_PHONE_NUMBER",
    ]);
    expect(preview.rows[8]).toEqual({ index: 8, ok: true, dialKey: "+12015550108;", phoneNumber: "+12015550108", timezone: "America/New_York" });
  });

  it("raises the bulk service's whole-request errors", async () => {
    const { organization, agent, admin } = await importSetup();
    await expect(admin.enrollment.validateImportRows({ agentId: agent.id, rows: sampleRows(), timezone: "Nowhere/Zone" })).rejects.toMatchObject({
      cause: { code: "INVALID_TIMEZONE" },
    });
    const archived = await createTestAgent(db, organization.id, { name: "Old", status: "ARCHIVED" });
    await expect(admin.enrollment.validateImportRows({ agentId: archived.id, rows: sampleRows() })).rejects.toMatchObject({ cause: { code: "AGENT_MISCONFIGURED" } });
    await expect(admin.enrollment.validateImportRows({ agentId: "agent.unknown", rows: sampleRows() })).rejects.toMatchObject({ cause: { code: "AGENT_NOT_FOUND" } });
  });
});

describe("enrollment.submitImportBatch", () => {
  it("schedules a batch once per idempotency key, and reports the progress of sequence creation", async () => {
    const { organization, agent, admin } = await importSetup();
    const contacts = Array.from({ length: 30 }, (_, i) => ({
      name: `Contact ${i}`,
      phoneNumber: `+1201555${String(1000 + i).padStart(4, "0")}`,
      scheduledAt: future,
      customVariables: { company_name: `Company ${i}` },
    }));
    contacts.push({ name: "Duplicate", phoneNumber: "+1 201 555 1000", scheduledAt: future, customVariables: { company_name: "Dup" } });
    const key = "csv-import:v1:test-file:1/1";

    const first = await admin.enrollment.submitImportBatch({ agentId: agent.id, idempotencyKey: key, contacts });
    expect(first).toMatchObject({ total: 31, accepted: 30, replayed: false });
    expect(first.rejected).toEqual([expect.objectContaining({ index: 30, reason: "DUPLICATE_PHONE_NUMBER" })]);
    expect(first.batchId).toMatch(/^[0-9a-f-]{36}$/);

    const before = await admin.enrollment.importProgress({ batchIds: [first.batchId!] });
    expect(before.batches).toEqual([{ batchId: first.batchId, status: "accepted", accepted: 30, created: 0 }]);
    await materializeBulkBatch(db, { batchId: first.batchId! });
    const after = await admin.enrollment.importProgress({ batchIds: [first.batchId!, "00000000-0000-0000-0000-000000000000"] });
    expect(after.batches).toEqual([{ batchId: first.batchId, status: "completed", accepted: 30, created: 30 }]);

    // The same import submitted again: the first answer, nothing new scheduled.
    const again = await admin.enrollment.submitImportBatch({ agentId: agent.id, idempotencyKey: key, contacts });
    expect(again).toEqual({ ...first, replayed: true });
    const batches = await db.select({ id: bulkBatches.id }).from(bulkBatches).where(eq(bulkBatches.organizationId, organization.id));
    expect(batches).toHaveLength(1);
    const created = await db.select({ id: sequences.id, scheduledBy: sequences.scheduledBy }).from(sequences).where(eq(sequences.organizationId, organization.id));
    expect(created).toHaveLength(30);
    expect(new Set(created.map((s) => s.scheduledBy))).toEqual(new Set(["dashboard"]));
  });

  it("answers a batch with no valid row with its rejections instead of failing the import", async () => {
    const { organization, agent, admin } = await importSetup();
    const result = await admin.enrollment.submitImportBatch({
      agentId: agent.id,
      idempotencyKey: "csv-import:v1:bad-file:1/1",
      contacts: [{ name: "", phoneNumber: "+12015550101" }, { name: "No phone" }],
    });
    expect(result).toEqual({
      batchId: null,
      total: 2,
      accepted: 0,
      replayed: false,
      rejected: [expect.objectContaining({ index: 0, reason: "MISSING_NAME" }), expect.objectContaining({ index: 1, reason: "MISSING_PHONE_NUMBER" })],
    });
    expect(await db.select().from(bulkBatches).where(eq(bulkBatches.organizationId, organization.id))).toEqual([]);
  });

  it("keeps the bulk service's batch errors (credits)", async () => {
    const { organization } = await createTestOrganization(db, { monthlyCreditAllocation: 1 });
    const agent = await createTestAgent(db, organization.id, { steps: [{ stepType: "CALL", delaySeconds: 0, delaySecondsMax: null, executionWindowConfig: window }] });
    const admin = await consoleCaller(db, organization.id, "admin");
    await expect(
      admin.enrollment.submitImportBatch({
        agentId: agent.id,
        idempotencyKey: "k",
        contacts: [{ name: "A", phoneNumber: "+12015550101" }, { name: "B", phoneNumber: "+12015550102" }],
      }),
    ).rejects.toMatchObject({ cause: { code: "INSUFFICIENT_CREDITS" } });
  });
});

describe("CSV import roles", () => {
  it("is for admins only: support, members and API keys are refused", async () => {
    const { organization, apiKey, agent } = await importSetup();
    const contacts = [{ name: "A", phoneNumber: "+12015550101", customVariables: { company_name: "A" } }];
    for (const caller of [await consoleCaller(db, organization.id, "support"), await consoleCaller(db, organization.id, "member"), apiKeyCaller(db, apiKey)]) {
      await expect(caller.enrollment.validateImportRows({ agentId: agent.id, rows: contacts })).rejects.toMatchObject({ cause: { code: "FORBIDDEN" } });
      await expect(caller.enrollment.submitImportBatch({ agentId: agent.id, idempotencyKey: "k", contacts })).rejects.toMatchObject({ cause: { code: "FORBIDDEN" } });
      await expect(caller.enrollment.importProgress({ batchIds: ["x"] })).rejects.toMatchObject({ cause: { code: "FORBIDDEN" } });
    }
    expect(await db.select().from(bulkBatches).where(eq(bulkBatches.organizationId, organization.id))).toEqual([]);
  });
});
