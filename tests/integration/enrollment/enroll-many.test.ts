import { and, eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { bulkBatches, calls, sequences } from "@/db/schema";
import { createApiKey } from "@/server/services/api-keys/manage-api-keys";
import { materializeBulkBatch } from "@/server/services/enrollment/materialize-bulk-batch";
import { createTestAgent, createTestOrganization } from "../../factories";
import { useTestDb } from "../../helpers/db";
import { addOptOut, callStep, patientApiClient, sequencesOfAgent, setupEnrollment } from "./helpers";

const db = useTestDb();
const api = patientApiClient(db);

type Contact = Record<string, unknown>;
const person = (i: number, extra: Contact = {}): Contact => ({
  name: `Contact ${i}`,
  phoneNumber: `+1415555${String(1000 + i).padStart(4, "0")}`,
  company_name: `Company ${i}`,
  ...extra,
});

function bulk(key: string, agentId: string, body: unknown, headers: Record<string, string> = {}) {
  return api(`/agents/${agentId}/schedule/sequences`, { method: "POST", key, body, headers });
}

async function batchesOf(organizationId: string) {
  return db.select().from(bulkBatches).where(eq(bulkBatches.organizationId, organizationId));
}

describe("POST /agents/{agentId}/schedule/sequences", () => {
  it("answers 202 with the result, then the sequences and their first calls are created", async () => {
    const { apiKey, agent, organization } = await setupEnrollment(db);
    const res = await bulk(apiKey, agent.id, { contacts: [person(1), person(2, { crm_ref: "R-2" }), person(3)] });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(res.body).toEqual({ batchId: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/), total: 3, accepted: 3, rejected: [] });
    const [batch] = await batchesOf(organization.id);
    expect(batch).toMatchObject({ id: res.body.batchId, status: "accepted", accepted: 3, total: 3 });

    await materializeBulkBatch(db, { batchId: res.body.batchId });
    const created = await sequencesOfAgent(db, agent.id);
    expect(created.map((s) => [s.batchIndex, s.phoneNumber, s.scheduledBy, s.batchId])).toEqual([
      [0, "+14155551001", "api", res.body.batchId],
      [1, "+14155551002", "api", res.body.batchId],
      [2, "+14155551003", "api", res.body.batchId],
    ]);
    expect(created[1]!.customInputVariables).toEqual({ company_name: "Company 2", crm_ref: "R-2" });
    expect(created[0]!.steps).toEqual(agent.steps);
    const firstCalls = await db.select().from(calls).where(eq(calls.organizationId, organization.id));
    expect(firstCalls).toHaveLength(3);
    expect(firstCalls.every((c) => c.resultType === "Scheduled" && c.stepNumber === 1 && c.promptVersionId === agent.currentPromptVersionId)).toBe(true);
    expect((await batchesOf(organization.id))[0]).toMatchObject({ status: "completed", createdCount: 3 });
  });

  it("normalizes numbers before duplicate detection: formatted variants collide, the first wins", async () => {
    const { apiKey, agent } = await setupEnrollment(db);
    const variants = ["+14155550171", "(415) 555-0171", "+1 415-555-0171", "001 415 555 0171", "415.555.0171"];
    const res = await bulk(apiKey, agent.id, { contacts: variants.map((phoneNumber, i) => person(i, { phoneNumber })) });
    expect(res.status).toBe(202);
    expect(res.body.accepted).toBe(1);
    expect(res.body.rejected).toEqual(
      variants.slice(1).map((phoneNumber, i) => ({
        index: i + 1,
        phoneNumber,
        reason: "DUPLICATE_PHONE_NUMBER",
        error: expect.stringContaining("index 0"),
      })),
    );
    const allowed = await bulk(apiKey, agent.id, { allowDuplicates: true, contacts: variants.map((phoneNumber, i) => person(i, { phoneNumber })) });
    expect(allowed.body).toMatchObject({ accepted: 5, rejected: [] });
    // a different extension is a different person
    const extensions = await bulk(apiKey, agent.id, { contacts: [person(1, { phoneNumberExt: "12" }), person(1, { phoneNumberExt: "13" })] });
    expect(extensions.body.accepted).toBe(2);
  });

  it("reports every rejection reason per contact and schedules the valid ones", async () => {
    const { apiKey, agent, organization } = await setupEnrollment(db, {
      agent: { steps: [callStep(), callStep({ stepType: "EMAIL", subject: "Hello", body: "Hi {{name}}", delaySeconds: 60 })] },
    });
    await addOptOut(db, organization.id, "+14155559999");
    const email = { toEmailAddress: "x@example.com" };
    const contacts: Contact[] = [
      person(0, email),
      person(1, { ...email, name: "" }),
      person(2, { ...email, phoneNumber: undefined }),
      person(3, { ...email, phoneNumber: "+1 555 12" }),
      person(0, email),
      person(5, { ...email, timezone: "Nowhere/Land" }),
      person(6, { ...email, scheduledAt: "2001-01-01T00:00:00Z" }),
      person(7),
      person(8, { ...email, company_name: undefined }),
      person(9, { ...email, customVariables: { company_name: 7 } }),
      person(10, { ...email, phoneNumber: "(415) 555-9999" }),
      person(11, email),
    ];
    const res = await bulk(apiKey, agent.id, { contacts });
    expect(res.status).toBe(202);
    expect(res.body.total).toBe(12);
    expect(res.body.accepted).toBe(2);
    expect(res.body.rejected.map((r: { index: number; reason: string }) => [r.index, r.reason])).toEqual([
      [1, "MISSING_NAME"],
      [2, "MISSING_PHONE_NUMBER"],
      [3, "INVALID_PHONE_NUMBER"],
      [4, "DUPLICATE_PHONE_NUMBER"],
      [5, "INVALID_TIMEZONE"],
      [6, "INVALID_SCHEDULED_AT"],
      [7, "MISSING_EMAIL"],
      [8, "MISSING_INPUT_VARIABLE"],
      [9, "INVALID_INPUT_VARIABLE"],
      [10, "OPTED_OUT"],
    ]);
    for (const rejection of res.body.rejected) expect(rejection.error).toEqual(expect.any(String));
    expect(res.body.rejected[9].phoneNumber).toBe("(415) 555-9999");
    await materializeBulkBatch(db, { batchId: res.body.batchId });
    expect((await sequencesOfAgent(db, agent.id)).map((s) => s.batchIndex)).toEqual([0, 11]);
  });

  it("fails the whole batch only for no valid contact, a misconfigured agent, or missing credits", async () => {
    const { apiKey, agent, organization } = await setupEnrollment(db, { credits: 2 });
    const none = await bulk(apiKey, agent.id, { contacts: [person(1, { name: "" }), person(2, { phoneNumber: "12" })] });
    expect(none.status).toBe(400);
    expect(none.body.error).toBe("NO_VALID_CONTACTS");
    expect(none.body.rejected.map((r: { reason: string }) => r.reason)).toEqual(["MISSING_NAME", "INVALID_PHONE_NUMBER"]);

    const archived = await createTestAgent(db, organization.id, { status: "ARCHIVED" });
    const misconfigured = await bulk(apiKey, archived.id, { contacts: [person(1)] });
    expect(misconfigured.status).toBe(422);
    expect(misconfigured.body.error).toBe("AGENT_MISCONFIGURED");

    // 2 credits: 3 valid contacts are too many, 2 valid + 1 rejected are fine
    const tooMany = await bulk(apiKey, agent.id, { contacts: [person(1), person(2), person(3)] });
    expect(tooMany.status).toBe(402);
    expect(tooMany.body.error).toBe("INSUFFICIENT_CREDITS");
    const enough = await bulk(apiKey, agent.id, { contacts: [person(1), person(2), person(3, { name: "" })] });
    expect(enough.status).toBe(202);
    expect(enough.body.accepted).toBe(2);
    expect(await batchesOf(organization.id)).toHaveLength(1);

    const other = await createTestOrganization(db);
    const foreign = await bulk(other.apiKey, agent.id, { contacts: [person(1)] });
    expect(foreign.status).toBe(404);
  });

  it("accepts 1 to 1,000 contacts", async () => {
    const { apiKey, agent, organization } = await setupEnrollment(db);
    // ~450 kB of JSON: custom variables of a real CSV import
    const thousand = Array.from({ length: 1000 }, (_, i) =>
      person(i, { phoneNumber: `+1212555${String(i).padStart(4, "0")}`, notes: "x".repeat(400), crm_ref: `REF-${i}` }),
    );
    const ok = await bulk(apiKey, agent.id, { contacts: thousand });
    expect(ok.status).toBe(202);
    expect(ok.body).toMatchObject({ total: 1000, accepted: 1000, rejected: [] });
    const over = await bulk(apiKey, agent.id, { contacts: [...thousand, person(1000)] });
    expect(over.status).toBe(400);
    expect(over.body.error).toBe("INVALID_REQUEST");
    expect(over.body.message).toContain("contacts");
    const empty = await bulk(apiKey, agent.id, { contacts: [] });
    expect(empty.status).toBe(400);
    expect(empty.body.error).toBe("INVALID_REQUEST");
    expect((await bulk(apiKey, agent.id, {})).body.message).toContain("contacts");
    expect(await batchesOf(organization.id)).toHaveLength(1);

    const result = await materializeBulkBatch(db, { batchId: ok.body.batchId, chunkSize: 300 });
    expect(result).toMatchObject({ created: 1000, completed: true });
    expect(result.startedSequenceIds).toHaveLength(1000);
    const [{ count }] = await db.select({ count: sql<number>`count(*)::int` }).from(sequences).where(eq(sequences.batchId, ok.body.batchId)) as [{ count: number }];
    expect(count).toBe(1000);
  });

  it("refuses groupByField with allowDuplicates and validates the request-level fields", async () => {
    const { apiKey, agent } = await setupEnrollment(db);
    const both = await bulk(apiKey, agent.id, { contacts: [person(1)], groupByField: "company_name", allowDuplicates: true });
    expect(both.status).toBe(400);
    expect(both.body.error).toBe("INVALID_REQUEST");
    const badZone = await bulk(apiKey, agent.id, { contacts: [person(1)], timezone: "Atlantis/Capital" });
    expect(badZone.status).toBe(400);
    expect(badZone.body.error).toBe("INVALID_TIMEZONE");
    const notBoolean = await bulk(apiKey, agent.id, { contacts: [person(1)], allowDuplicates: "false" });
    expect(notBoolean.status).toBe(400);
    expect(notBoolean.body.message).toContain("allowDuplicates");
  });

  it("uses the batch timezone for contacts without their own", async () => {
    const { apiKey, agent } = await setupEnrollment(db);
    const res = await bulk(apiKey, agent.id, {
      timezone: "Europe/Paris",
      contacts: [person(1), person(2, { timezone: "Asia/Tokyo" })],
    });
    await materializeBulkBatch(db, { batchId: res.body.batchId });
    expect((await sequencesOfAgent(db, agent.id)).map((s) => s.timezone)).toEqual(["Europe/Paris", "Asia/Tokyo"]);
    const inferred = await bulk(apiKey, agent.id, { contacts: [person(3, { phoneNumber: "+13035550100" })] });
    await materializeBulkBatch(db, { batchId: inferred.body.batchId });
    const [denver] = await db.select().from(sequences).where(eq(sequences.batchId, inferred.body.batchId));
    expect(denver!.timezone).toBe("America/Denver");
  });

  it("title-cases the listed fields only for allowlisted organizations", async () => {
    const body = { titleCaseFields: ["company_name", "name"], contacts: [person(1, { name: "mary-jane O'NEIL", company_name: "ACME widgets inc" })] };
    const listed = await setupEnrollment(db, { titleCaseAllowlisted: true });
    const a = await bulk(listed.apiKey, listed.agent.id, body);
    await materializeBulkBatch(db, { batchId: a.body.batchId });
    const [titled] = await sequencesOfAgent(db, listed.agent.id);
    expect(titled).toMatchObject({ name: "Mary-Jane O'Neil", customInputVariables: { company_name: "Acme Widgets Inc" } });

    const unlisted = await setupEnrollment(db);
    const b = await bulk(unlisted.apiKey, unlisted.agent.id, body);
    await materializeBulkBatch(db, { batchId: b.body.batchId });
    const [kept] = await sequencesOfAgent(db, unlisted.agent.id);
    expect(kept).toMatchObject({ name: "mary-jane O'NEIL", customInputVariables: { company_name: "ACME widgets inc" } });
  });
});

describe("Idempotency-Key", () => {
  it("replays the first 202 body and schedules nothing new, whatever the second payload", async () => {
    const { apiKey, agent, organization } = await setupEnrollment(db);
    const headers = { "Idempotency-Key": "import-2026-11-22" };
    const first = await bulk(apiKey, agent.id, { contacts: [person(1), person(2, { name: "" })] }, headers);
    expect(first.status).toBe(202);
    const replay = await bulk(apiKey, agent.id, { contacts: [person(3), person(4), person(5)] }, headers);
    expect(replay.status).toBe(202);
    expect(replay.body).toEqual(first.body);
    expect(await batchesOf(organization.id)).toHaveLength(1);

    const fresh = await bulk(apiKey, agent.id, { contacts: [person(3)] }, { "Idempotency-Key": "import-2026-11-22-fix" });
    expect(fresh.body.batchId).not.toBe(first.body.batchId);
    // the same key in another organization is another key
    const other = await setupEnrollment(db);
    const elsewhere = await bulk(other.apiKey, other.agent.id, { contacts: [person(1)] }, headers);
    expect(elsewhere.body.batchId).not.toBe(first.body.batchId);
  });

  it("refuses keys over 255 characters", async () => {
    const { apiKey, agent, organization } = await setupEnrollment(db);
    const long = await bulk(apiKey, agent.id, { contacts: [person(1)] }, { "Idempotency-Key": "k".repeat(256) });
    expect(long.status).toBe(400);
    expect(long.body.error).toBe("INVALID_REQUEST");
    expect(long.body.message).toContain("Idempotency-Key");
    expect((await bulk(apiKey, agent.id, { contacts: [person(1)] }, { "Idempotency-Key": "k".repeat(255) })).status).toBe(202);
    expect(await batchesOf(organization.id)).toHaveLength(1);
  });

  it("produces one batch from 20 parallel requests with one key", async () => {
    const { apiKey, agent, organization } = await setupEnrollment(db);
    // 10 requests/s per key: spread the race over 4 keys of the organization
    const keys = [apiKey];
    for (let i = 0; i < 3; i += 1) keys.push((await createApiKey(db, { organizationId: organization.id, name: `race-${i}` })).key);
    const contacts = Array.from({ length: 50 }, (_, i) => person(i));
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => bulk(keys[i % keys.length]!, agent.id, { contacts }, { "Idempotency-Key": "race" })),
    );
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(202));
    expect(new Set(results.map((r) => r.body.batchId)).size).toBe(1);
    const batches = await batchesOf(organization.id);
    expect(batches).toHaveLength(1);
    await materializeBulkBatch(db, { batchId: batches[0]!.id });
    expect(await sequencesOfAgent(db, agent.id)).toHaveLength(50);
  });
});

describe("materialized fields", () => {
  it("stores every field of a bulk contact as single enrollment stores the same contact", async () => {
    const { apiKey, agent } = await setupEnrollment(db);
    const consent = { type: "express_written", capturedAt: "2026-10-02T09:30:00-04:00", source: "signup form", evidenceUrl: "https://evidence.example.com/1.pdf" };
    const later = new Date(Date.now() + 3 * 86_400_000).toISOString();
    const variants: Contact[] = [
      { phoneNumberExt: "12", toEmailAddress: "a@example.com", timezone: "America/Chicago", consent, account: "A" },
      { scheduledAt: later, bypassCallWindows: true, crm_ref: "R-9", account: "B" },
      {},
    ];
    const bulkBody = { groupByField: "account", contacts: variants.map((extra, i) => person(20 + i, extra)) };
    const res = await bulk(apiKey, agent.id, bulkBody);
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    await materializeBulkBatch(db, { batchId: res.body.batchId });
    const singles = [];
    for (const [i, extra] of variants.entries()) {
      const one = await api(`/agents/${agent.id}/schedule/sequence`, { method: "POST", key: apiKey, body: { ...person(40 + i, extra), groupByField: "account" } });
      expect(one.status, JSON.stringify(one.body)).toBe(201);
      singles.push(one.body.sequence.sequenceId as string);
    }
    const rows = await sequencesOfAgent(db, agent.id);
    const fields = (row: (typeof rows)[number]) => ({
      phoneNumberExt: row.phoneNumberExt,
      toEmailAddress: row.toEmailAddress,
      timezone: row.timezone,
      customInputVariables: row.customInputVariables,
      scheduledAt: row.scheduledAt,
      bypassCallWindows: row.bypassCallWindows,
      consent: row.consent,
      groupKey: row.groupKey,
      groupByField: row.groupByField,
      steps: row.steps,
      scheduledBy: row.scheduledBy,
    });
    const bulkRows = rows.filter((row) => row.batchId === res.body.batchId).sort((a, b) => a.batchIndex! - b.batchIndex!);
    expect(bulkRows.map((row) => row.name)).toEqual(["Contact 20", "Contact 21", "Contact 22"]);
    for (const [i, id] of singles.entries()) {
      const single = rows.find((row) => row.id === id)!;
      const { customInputVariables: bulkVars, ...bulkFields } = fields(bulkRows[i]!);
      const { customInputVariables: singleVars, ...singleFields } = fields(single);
      expect(bulkFields).toEqual({ ...singleFields, scheduledBy: bulkFields.scheduledBy });
      expect(Object.keys(bulkVars).sort()).toEqual(Object.keys(singleVars).sort());
    }
    expect(bulkRows[0]).toMatchObject({ phoneNumberExt: "12", toEmailAddress: "a@example.com", timezone: "America/Chicago", groupKey: "account=A", consent: { type: "express_written", capturedAt: "2026-10-02T13:30:00.000Z" } });
    expect(bulkRows[1]).toMatchObject({ scheduledAt: new Date(later), bypassCallWindows: true, customInputVariables: { company_name: "Company 21", crm_ref: "R-9", account: "B" } });
    expect(bulkRows[2]).toMatchObject({ phoneNumberExt: "", toEmailAddress: null, consent: null, groupKey: null, scheduledAt: null, bypassCallWindows: false });
    // no consent is SQL NULL (not a JSON null), as single enrollment stores it: the consent export's index skips it
    const withoutConsent = await db.execute<{ id: string }>(sql`select id from sequences where id in (${bulkRows[2]!.id}, ${singles[2]!}) and consent is null`);
    expect(withoutConsent).toHaveLength(2);
    // the first calls: due at the explicit time for the second contact
    const firstCalls = await db.select().from(calls).where(eq(calls.sequenceId, bulkRows[1]!.id));
    expect(firstCalls.map((call) => call.scheduledAt)).toEqual([new Date(later)]);
  });
});

describe("resumable materialization", () => {
  it("resumes after a crash in the middle without loss or duplicates", async () => {
    const { apiKey, agent } = await setupEnrollment(db);
    const res = await bulk(apiKey, agent.id, { contacts: Array.from({ length: 250 }, (_, i) => person(i)) });
    const { materializeBulkBatchChunk } = await import("@/server/services/enrollment/materialize-bulk-batch");
    // the run dies after its second chunk committed
    await materializeBulkBatchChunk(db, { batchId: res.body.batchId, chunkIndex: 0, chunkSize: 50 });
    await materializeBulkBatchChunk(db, { batchId: res.body.batchId, chunkIndex: 1, chunkSize: 50 });
    expect(await sequencesOfAgent(db, agent.id)).toHaveLength(100);
    // a new run starts over from the first chunk; two runs even race
    const [a, b] = await Promise.all([
      materializeBulkBatch(db, { batchId: res.body.batchId, chunkSize: 50 }),
      materializeBulkBatch(db, { batchId: res.body.batchId, chunkSize: 50 }),
    ]);
    expect(a.created + b.created).toBe(150);
    const all = await sequencesOfAgent(db, agent.id);
    expect(all.map((s) => s.batchIndex)).toEqual(Array.from({ length: 250 }, (_, i) => i));
    const scheduled = await db.select().from(calls).where(eq(calls.agentId, agent.id));
    expect(scheduled).toHaveLength(250);
    expect(new Set(scheduled.map((c) => c.sequenceId)).size).toBe(250);
    const [batch] = await db.select().from(bulkBatches).where(eq(bulkBatches.id, res.body.batchId));
    expect(batch).toMatchObject({ status: "completed", createdCount: 250 });
  });
});

describe("contact chaining in bulk", () => {
  it("schedules only the first valid contact of each group; the others wait in order", async () => {
    const { apiKey, agent } = await setupEnrollment(db);
    const res = await bulk(apiKey, agent.id, {
      groupByField: "account",
      contacts: [
        person(0, { account: "A" }),
        person(1, { account: "B" }),
        person(2, { account: "A", name: "" }), // rejected: does not take a place in the chain
        person(3, { account: "A" }),
        person(4),
        person(5, { account: "A" }),
      ],
    });
    expect(res.body.accepted).toBe(5);
    await materializeBulkBatch(db, { batchId: res.body.batchId });
    const rows = await sequencesOfAgent(db, agent.id);
    expect(rows.map((s) => [s.batchIndex, s.groupKey, s.chainPosition, s.chainStatus])).toEqual([
      [0, "account=A", 1, "active"],
      [1, "account=B", 1, "active"],
      [3, "account=A", 2, "waiting"],
      [4, null, null, null],
      [5, "account=A", 3, "waiting"],
    ]);
    const withCalls = await db.select({ sequenceId: calls.sequenceId }).from(calls).where(eq(calls.agentId, agent.id));
    const scheduledIds = new Set(withCalls.map((c) => c.sequenceId));
    expect(rows.map((s) => scheduledIds.has(s.id))).toEqual([true, true, false, true, false]);

    // a later enrollment into the busy group waits too
    const later = await bulk(apiKey, agent.id, { groupByField: "account", contacts: [person(9, { account: "A" }), person(10, { account: "C" })] });
    await materializeBulkBatch(db, { batchId: later.body.batchId });
    const laterRows = await db.select().from(sequences).where(and(eq(sequences.agentId, agent.id), eq(sequences.batchId, later.body.batchId)));
    expect(laterRows.map((s) => [s.groupKey, s.chainPosition, s.chainStatus]).sort()).toEqual([
      ["account=A", 4, "waiting"],
      ["account=C", 1, "active"],
    ]);
  });
});
