import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { bulkBatches } from "@/db/schema";
import {
  MAX_NAME_LENGTH,
  MAX_VARIABLE_NAME_LENGTH,
  MAX_VARIABLE_VALUE_LENGTH,
  MAX_VARIABLES_PER_CONTACT,
} from "@/server/schemas/limits";
import { materializeBulkBatch } from "@/server/services/enrollment/materialize-bulk-batch";
import { createTestCall, createTestSequence } from "../../factories";
import { useTestDb } from "../../helpers/db";
import { findSequence, patientApiClient, sequencesOfAgent, setupEnrollment } from "../enrollment/helpers";

const db = useTestDb();
const api = patientApiClient(db);

const contact = { name: "Ada Lovelace", phoneNumber: "+14155550171", company_name: "Acme" };
const NUL = "\u0000";
const LONE_SURROGATE = "\ud800";

const enrollOne = (key: string, agentId: string, body: unknown) =>
  api(`/agents/${agentId}/schedule/sequence`, { method: "POST", key, body });
const enrollMany = (key: string, agentId: string, body: unknown) =>
  api(`/agents/${agentId}/schedule/sequences`, { method: "POST", key, body });

function expectError(res: { status: number; body: any }, status: number, code: string, mentions: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body.error).toBe(code);
  expect(typeof res.body.message).toBe("string");
  expect(res.body.message).toContain(mentions);
}

describe("length and count limits on single requests", () => {
  it("accepts a contact at every limit and refuses one character or item more, naming the field", async () => {
    const { apiKey, agent } = await setupEnrollment(db);
    const variables = Object.fromEntries(Array.from({ length: MAX_VARIABLES_PER_CONTACT - 1 }, (_, i) => [`v${i}`, "x".repeat(MAX_VARIABLE_VALUE_LENGTH)]));
    const atLimits = { ...contact, name: "N".repeat(MAX_NAME_LENGTH), ...variables, ["k".repeat(MAX_VARIABLE_NAME_LENGTH)]: "ok" };
    delete (atLimits as Record<string, unknown>).v0;
    const ok = await enrollOne(apiKey, agent.id, atLimits);
    expect(ok.status, JSON.stringify(ok.body).slice(0, 300)).toBe(201);
    expect(ok.body.sequence.name).toHaveLength(MAX_NAME_LENGTH);

    expectError(await enrollOne(apiKey, agent.id, { ...contact, name: "N".repeat(MAX_NAME_LENGTH + 1) }), 400, "INVALID_REQUEST", "name: must be at most 200 characters");
    expectError(await enrollOne(apiKey, agent.id, { ...contact, toEmailAddress: `${"a".repeat(250)}@x.example` }), 400, "INVALID_REQUEST", "toEmailAddress");
    expectError(await enrollOne(apiKey, agent.id, { ...contact, timezone: "T".repeat(65) }), 400, "INVALID_REQUEST", "timezone");
    expectError(await enrollOne(apiKey, agent.id, { ...contact, notes: "x".repeat(MAX_VARIABLE_VALUE_LENGTH + 1) }), 400, "INVALID_INPUT_VARIABLE", "notes is longer than 1,000");
    expectError(
      await enrollOne(apiKey, agent.id, { ...contact, customVariables: { ["k".repeat(MAX_VARIABLE_NAME_LENGTH + 1)]: "v" } }),
      400,
      "INVALID_INPUT_VARIABLE",
      "1–64 characters",
    );
    const tooMany = Object.fromEntries(Array.from({ length: MAX_VARIABLES_PER_CONTACT }, (_, i) => [`v${i}`, "x"]));
    expectError(await enrollOne(apiKey, agent.id, { ...contact, ...tooMany }), 400, "INVALID_INPUT_VARIABLE", "At most 50 custom variables");
    expectError(
      await api("/sequences/cancel", { method: "POST", key: apiKey, body: { referenceKey: "crm_ref", referenceValue: "v".repeat(1001) } }),
      400,
      "INVALID_REQUEST",
      "referenceValue: must be at most 1,000 characters",
    );
  });

  it("refuses a NUL character or an unpaired surrogate in any string of any endpoint, keys included, naming the field", async () => {
    const { apiKey, agent, organization } = await setupEnrollment(db);
    const sequence = await createTestSequence(db, { organizationId: organization.id, agentId: agent.id });
    const call = await createTestCall(db, { organizationId: organization.id, agentId: agent.id, sequenceId: sequence.id, scheduledAt: new Date() });
    for (const bad of [NUL, LONE_SURROGATE]) {
      const cases: Array<[string, { method?: string; body?: unknown; query?: Record<string, string> }, string]> = [
        [`/agents/${agent.id}/schedule/sequence`, { method: "POST", body: { ...contact, name: `Ada${bad}` } }, "name"],
        [`/agents/${agent.id}/schedule/sequence`, { method: "POST", body: { ...contact, company_name: `Acme${bad}` } }, "company_name"],
        [`/agents/${agent.id}/schedule/sequence`, { method: "POST", body: { ...contact, customVariables: { [`crm${bad}`]: "x" } } }, "customVariables.crm\ufffd"],
        [`/agents/${agent.id}/schedule/sequences`, { method: "POST", body: { contacts: [contact], groupByField: `g${bad}` } }, "groupByField"],
        ["/sequences/cancel", { method: "POST", body: { referenceKey: "crm_ref", referenceValue: `x${bad}` } }, "referenceValue"],
        ["/sequences/cancel", { method: "POST", body: { referenceKey: `crm${bad}`, referenceValue: "x" } }, "referenceKey"],
        ["/recordings", { method: "POST", body: { sequenceIds: [`call-sequence.${bad}`] } }, "sequenceIds.0"],
        [`/conversations/meetings/${call.id}/attendees`, { method: "POST", body: { attendees: [{ email: "a@b.example", name: `A${bad}` }] } }, "attendees.0.name"],
        [`/conversations/meetings/${call.id}/cancel`, { method: "POST", body: { cancellationReason: `no${bad}` } }, "cancellationReason"],
      ];
      // In a query string only NUL can arrive: URLs carry UTF-8, where an unpaired surrogate becomes U+FFFD.
      if (bad === NUL) {
        cases.push(["/agents", { query: { orgId: `${organization.orgId}${bad}` } }, "orgId"], ["/credits/usage", { query: { month: `2026${bad}01` } }, "month"]);
      }
      for (const [path, options, field] of cases) {
        const res = await api(path, { key: apiKey, ...options });
        expect(res.status, `${path} ${field}: ${JSON.stringify(res.body)}`).toBe(400);
        expect(res.body.error).toBe("INVALID_REQUEST");
        expect(res.body.message).toContain(`${field}: must not contain NUL characters`);
      }
    }
    // A path parameter: 404 while path segments reach the procedures undecoded, 400 (the guard) if they are decoded.
    const nulPath = await api(`/agents/agent.x%00/outcomes`, { key: apiKey });
    expect([400, 404]).toContain(nulPath.status);
    expect(nulPath.body).toEqual({ error: expect.any(String), message: expect.any(String) });
    // Nothing was stored: the agent has only the test's own sequence.
    expect((await sequencesOfAgent(db, agent.id)).map((row) => row.id)).toEqual([sequence.id]);
  });

  it("answers 401, not 400, when the key is missing: the text guard runs after authentication", async () => {
    const { agent } = await setupEnrollment(db);
    const res = await enrollOne("", agent.id, { ...contact, name: `A${NUL}` });
    expect(res.status).toBe(401);
  });
});

describe("bulk enrollment: a bad field rejects that contact, not the batch", () => {
  it("rejects oversized or NUL/surrogate fields one contact at a time with the field's reason, and schedules the rest", async () => {
    const { apiKey, agent, organization } = await setupEnrollment(db);
    const contacts = [
      { ...contact, phoneNumber: "+14155550100" },
      { ...contact, phoneNumber: "+14155550101", name: "N".repeat(100_000) },
      { ...contact, phoneNumber: "+14155550102", name: `Ada${NUL}` },
      { ...contact, phoneNumber: `+1415555${LONE_SURROGATE}0103` },
      { ...contact, phoneNumber: "+14155550104", toEmailAddress: `ada${NUL}@example.com` },
      { ...contact, phoneNumber: "+14155550105", timezone: `America/New_York${NUL}` },
      { ...contact, phoneNumber: "+14155550106", scheduledAt: `2030-01-01T00:00:00Z${LONE_SURROGATE}` },
      { ...contact, phoneNumber: "+14155550107", company_name: `Acme${NUL}` },
      { ...contact, phoneNumber: "+14155550108", customVariables: { [`k${LONE_SURROGATE}`]: "v" } },
      { ...contact, phoneNumber: "+14155550109", groupByField: `g${NUL}` },
      { ...contact, phoneNumber: "+14155550110", notes: "x".repeat(MAX_VARIABLE_VALUE_LENGTH + 1) },
      { ...contact, phoneNumber: "+14155550111", ...Object.fromEntries(Array.from({ length: MAX_VARIABLES_PER_CONTACT }, (_, i) => [`v${i}`, "x"])) },
      { ...contact, phoneNumber: "+1".padEnd(70, "5") },
      { ...contact, phoneNumber: "+14155550113", phoneNumberExt: `12${NUL}` },
      { ...contact, phoneNumber: "+14155550114" },
    ];
    const res = await enrollMany(apiKey, agent.id, { contacts });
    expect(res.status, JSON.stringify(res.body).slice(0, 500)).toBe(202);
    expect(res.body.total).toBe(contacts.length);
    expect(res.body.accepted).toBe(2);
    expect(res.body.rejected.map((r: { index: number; reason: string }) => [r.index, r.reason])).toEqual([
      [1, "INVALID_NAME"],
      [2, "INVALID_NAME"],
      [3, "INVALID_PHONE_NUMBER"],
      [4, "MISSING_EMAIL"],
      [5, "INVALID_TIMEZONE"],
      [6, "INVALID_SCHEDULED_AT"],
      [7, "INVALID_INPUT_VARIABLE"],
      [8, "INVALID_INPUT_VARIABLE"],
      [9, "INVALID_INPUT_VARIABLE"],
      [10, "INVALID_INPUT_VARIABLE"],
      [11, "INVALID_INPUT_VARIABLE"],
      [12, "INVALID_PHONE_NUMBER"],
      [13, "INVALID_PHONE_NUMBER"],
    ]);
    const byIndex = new Map(res.body.rejected.map((r: { index: number }) => [r.index, r]));
    expect(byIndex.get(1)).toMatchObject({ error: "name is longer than 200 characters." });
    expect(byIndex.get(2)).toMatchObject({ error: expect.stringContaining("name must not contain NUL characters") });
    // The phone number is quoted back safe: the refused character replaced, nothing PostgreSQL cannot store.
    expect(byIndex.get(3)).toMatchObject({ phoneNumber: "+1415555\ufffd0103" });
    expect((byIndex.get(12) as { phoneNumber: string }).phoneNumber).toHaveLength(64);
    // The batch (with its response) is stored and materializes.
    const [batch] = await db.select().from(bulkBatches).where(eq(bulkBatches.organizationId, organization.id));
    expect(batch!.response).toEqual(res.body);
    await materializeBulkBatch(db, { batchId: res.body.batchId });
    expect((await sequencesOfAgent(db, agent.id)).map((s) => s.phoneNumber)).toEqual(["+14155550100", "+14155550114"]);
  });

  it("answers NO_VALID_CONTACTS (not a 500) when every contact holds a NUL", async () => {
    const { apiKey, agent } = await setupEnrollment(db);
    const res = await enrollMany(apiKey, agent.id, { contacts: [{ ...contact, name: `A${NUL}` }, { ...contact, phoneNumber: `${NUL}` }] });
    expectError(res, 400, "NO_VALID_CONTACTS", "None of the 2");
    expect(res.body.rejected.map((r: { reason: string }) => r.reason)).toEqual(["INVALID_NAME", "INVALID_PHONE_NUMBER"]);
  });
});

describe("values that were 500s", () => {
  it("refuses month=0000-01 and dates before 1900 (credits usage)", async () => {
    const { apiKey } = await setupEnrollment(db);
    expectError(await api("/credits/usage", { key: apiKey, query: { month: "0000-01" } }), 400, "INVALID_REQUEST", "month must not be before 1900-01");
    expectError(await api("/credits/usage", { key: apiKey, query: { startDate: "0000-01-01", endDate: "0000-01-02" } }), 400, "INVALID_REQUEST", "startDate");
    expect((await api("/credits/usage", { key: apiKey, query: { month: "1900-01" } })).status).toBe(200);
  });

  it("searches up to 9999-12-31 (the day after is computed by PostgreSQL), and refuses years outside 1900–9999", async () => {
    const { apiKey, agent, organization } = await setupEnrollment(db);
    const sequence = await createTestSequence(db, { organizationId: organization.id, agentId: agent.id });
    await createTestCall(db, { organizationId: organization.id, agentId: agent.id, sequenceId: sequence.id, scheduledAt: new Date("9999-12-31T23:59:59.999Z") });
    const res = await api(`/conversations/search/${agent.id}`, { key: apiKey, query: { start: "9999-12-31", end: "9999-12-31" } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ sequenceIds: [sequence.id], hasMore: false, total: 1 });
    expectError(await api(`/conversations/search/${agent.id}`, { key: apiKey, query: { start: "0000-01-01", end: "2026-01-01" } }), 400, "INVALID_REQUEST", "start");
  });

  it("takes integer query parameters as digits only: 1e3, 1.5, +5, ' 5', 0x10 and '' are 400s", async () => {
    const { apiKey, agent, organization } = await setupEnrollment(db);
    for (const page of ["1e3", "1.5", "+5", " 5", "0x10", "", "-1", "0", "100001", "99999999999999999999"]) {
      expectError(await api("/agents", { key: apiKey, query: { orgId: organization.orgId, page } }), 400, "INVALID_REQUEST", "page");
    }
    const second = await api("/agents", { key: apiKey, query: { orgId: organization.orgId, page: "2" } });
    expect(second.status).toBe(200);
    expect(second.body.pagination.page).toBe(2);
    const searches: Array<[string, string]> = [["limit", "1e2"], ["offset", "1e3"], ["offset", "1000000001"], ["limit", "5.0"]];
    for (const [name, value] of searches) {
      const res = await api(`/conversations/search/${agent.id}`, { key: apiKey, query: { start: "2026-01-01", end: "2026-01-02", [name]: value } });
      expectError(res, 400, "INVALID_REQUEST", name);
    }
  });

  it("refuses extended years, offsets beyond ±14:00 and times more than 730 days ahead in scheduledAt — single and bulk", async () => {
    const { apiKey, agent } = await setupEnrollment(db);
    const now = Date.now();
    const iso = (ms: number) => new Date(ms).toISOString();
    const refused = [
      "+275760-09-13T00:00:00.000Z",
      "+002030-01-01T00:00:00Z",
      "2030-01-01T00:00:00+25:00",
      "2030-01-01T00:00:00-14:30",
      iso(now + 731 * 86_400_000),
      "9999-12-31T23:59:59Z",
    ];
    for (const scheduledAt of refused) {
      expectError(await enrollOne(apiKey, agent.id, { ...contact, scheduledAt }), 400, "INVALID_SCHEDULED_AT", "scheduledAt");
    }
    const bulk = await enrollMany(apiKey, agent.id, {
      contacts: [...refused.map((scheduledAt, i) => ({ ...contact, phoneNumber: `+1415555020${i}`, scheduledAt })), { ...contact, phoneNumber: "+14155550299" }],
    });
    expect(bulk.status).toBe(202);
    expect(bulk.body.rejected.map((r: { reason: string }) => r.reason)).toEqual(refused.map(() => "INVALID_SCHEDULED_AT"));

    // 30 days ahead, written in +14:00 (Kiribati): accepted, and read as that instant.
    const instant = new Date(Math.floor((now + 30 * 86_400_000) / 1000) * 1000);
    const inPlusFourteen = `${new Date(instant.getTime() + 14 * 3600_000).toISOString().slice(0, 19)}+14:00`;
    const ok = await enrollOne(apiKey, agent.id, { ...contact, phoneNumber: "+14155550300", scheduledAt: inPlusFourteen, bypassCallWindows: true });
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    expect(ok.body.sequence.scheduledAt).toBe(instant.toISOString());
  });

  it("treats variables named constructor or toString as plain variables, and refuses __proto__ instead of dropping it", async () => {
    const { apiKey, agent } = await setupEnrollment(db, {
      agent: { inputVariables: [{ slug: "company_name", required: true }, { slug: "constructor", required: true }] },
    });
    expectError(await enrollOne(apiKey, agent.id, contact), 400, "MISSING_INPUT_VARIABLE", "constructor");
    const grouped = await enrollOne(apiKey, agent.id, { ...contact, constructor: "c", groupByField: "toString" });
    expect(grouped.status, JSON.stringify(grouped.body)).toBe(201);
    const plain = await enrollOne(apiKey, agent.id, { ...contact, phoneNumber: "+14155550172", customVariables: { constructor: "c", toString: "t" } });
    expect(plain.status, JSON.stringify(plain.body)).toBe(201);
    expect(plain.body.sequence.customInputVariables).toEqual({ company_name: "Acme", constructor: "c", toString: "t" });
    expect((await findSequence(db, plain.body.sequence.sequenceId))!.customInputVariables).toEqual(plain.body.sequence.customInputVariables);
    const proto = await api(`/agents/${agent.id}/schedule/sequence`, {
      method: "POST",
      key: apiKey,
      rawBody: JSON.stringify({ ...contact, constructor: "c" }).replace("{", '{"customVariables":{"__proto__":"p"},'),
      headers: { "content-type": "application/json" },
    });
    expectError(proto, 400, "INVALID_REQUEST", "customVariables.__proto__: __proto__ is not accepted");
    const bulk = await enrollMany(apiKey, agent.id, { contacts: [{ ...contact, constructor: "c", phoneNumber: "+14155550173" }], groupByField: "valueOf" });
    expect(bulk.status, JSON.stringify(bulk.body)).toBe(202);
  });
});
