import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { calls, optOuts, sequences } from "@/db/schema";
import { MAX_SUPPRESSIONS_PER_REQUEST } from "@/server/schemas/limits";
import { createTestOrganization } from "../../factories";
import { useTestDb } from "../../helpers/db";
import { createOrgWithRoles } from "../dashboard/helpers";
import { patientApiClient, setupEnrollment } from "../enrollment/helpers";

const db = useTestDb();
const api = patientApiClient(db);

const add = (key: string, body: unknown) => api("/suppressions", { method: "POST", key, body });
const list = (key: string, query: Record<string, string | number | undefined> = {}) => api("/suppressions", { key, query });
const remove = (key: string, encoded: string) => api(`/suppressions/${encoded}`, { method: "DELETE", key });

async function entriesOf(organizationId: string) {
  return db.select().from(optOuts).where(eq(optOuts.organizationId, organizationId));
}

describe("POST /suppressions", () => {
  it("adds numbers in any format, counts repeats and existing entries, rejects bad items by index", async () => {
    const { organization, apiKey } = await createTestOrganization(db);
    const first = await add(apiKey, { phoneNumbers: ["+1 (415) 555-0171", "212.555.0142"], reason: "asked by email" });
    expect(first.status, first.text).toBe(200);
    expect(first.body).toEqual({ added: 2, alreadySuppressed: 0, rejected: [] });

    const second = await add(apiKey, { phoneNumbers: ["4155550171", "+12125550199", "not a number", 42, "+12125550199", "", "x".repeat(65), "+14155550171 ext. 12"] });
    expect(second.status).toBe(200);
    expect(second.body.added).toBe(1);
    // 4155550171 was on the list, +12125550199 is repeated, the extension form is the listed number.
    expect(second.body.alreadySuppressed).toBe(3);
    expect(second.body.rejected).toEqual([
      { index: 2, phoneNumber: "not a number", reason: "INVALID_PHONE_NUMBER", error: expect.any(String) },
      { index: 3, phoneNumber: "42", reason: "INVALID_PHONE_NUMBER", error: expect.any(String) },
      { index: 5, phoneNumber: "", reason: "INVALID_PHONE_NUMBER", error: expect.any(String) },
      { index: 6, phoneNumber: "x".repeat(64), reason: "INVALID_PHONE_NUMBER", error: expect.any(String) },
    ]);

    const rows = await entriesOf(organization.id);
    expect(rows.map((row) => [row.phoneNumber, row.source, row.reason]).sort()).toEqual([
      ["+12125550142", "api", "asked by email"],
      ["+12125550199", "api", null],
      ["+14155550171", "api", "asked by email"],
    ]);
    expect(rows.every((row) => row.createdBy?.startsWith("apiKey:"))).toBe(true);
  });

  it("takes 10,000 numbers in one request (a body over the default 256 kB limit) and refuses 10,001", async () => {
    const { organization, apiKey } = await createTestOrganization(db);
    // Formatted as people write them, with an extension (dropped: the number is suppressed on every extension).
    const numbers = Array.from({ length: MAX_SUPPRESSIONS_PER_REQUEST }, (_, i) => {
      const digits = String(i).padStart(5, "0");
      return `+1 (415) 55${digits.slice(0, 1)}-${digits.slice(1)} ext. ${1000 + (i % 9000)}`;
    });
    expect(JSON.stringify({ phoneNumbers: numbers }).length).toBeGreaterThan(256 * 1024);
    const res = await add(apiKey, { phoneNumbers: numbers });
    expect(res.status, res.text.slice(0, 300)).toBe(200);
    expect(res.body.added + res.body.alreadySuppressed + res.body.rejected.length).toBe(MAX_SUPPRESSIONS_PER_REQUEST);
    expect((await entriesOf(organization.id)).length).toBe(res.body.added);
    expect(res.body.added).toBeGreaterThan(9_000);

    const tooMany = await add(apiKey, { phoneNumbers: [...numbers, "+14155550100"] });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body).toMatchObject({ error: "INVALID_REQUEST", message: expect.stringContaining("phoneNumbers") });
  });

  it("refuses bad bodies with 400 in the documented shape", async () => {
    const { apiKey } = await createTestOrganization(db);
    for (const body of [{}, { phoneNumbers: [] }, { phoneNumbers: "+14155550171" }, { phoneNumbers: ["+14155550171"], reason: "r".repeat(1_001) }, { phoneNumbers: ["+14155550171"], reason: 5 }]) {
      const res = await add(apiKey, body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(res.body).toEqual({ error: "INVALID_REQUEST", message: expect.any(String), details: expect.any(Object) });
    }
    const nul = await add(apiKey, { phoneNumbers: ["+1415555\u00000171"] });
    expect(nul.status).toBe(200);
    expect(nul.body.rejected).toEqual([{ index: 0, phoneNumber: "+1415555\ufffd0171", reason: "INVALID_PHONE_NUMBER", error: expect.any(String) }]);
    expect((await api("/suppressions", { method: "POST", key: apiKey, rawBody: "{", headers: { "content-type": "application/json" } })).body.error).toBe("INVALID_REQUEST_BODY");
    expect((await api("/suppressions", { method: "POST" , body: { phoneNumbers: ["+14155550171"] } })).status).toBe(401);
  });
});

describe("GET /suppressions", () => {
  it("lists newest first, 100 per page, and filters by a number in any format", async () => {
    const { apiKey, organization } = await createTestOrganization(db);
    const base = Date.UTC(2026, 0, 1);
    await db.insert(optOuts).values(
      Array.from({ length: 150 }, (_, i) => ({
        organizationId: organization.id,
        phoneNumber: `+1212555${String(1000 + i)}`,
        source: i === 149 ? ("call" as const) : ("api" as const),
        createdAt: new Date(base + i * 60_000),
      })),
    );
    const page1 = await list(apiKey);
    expect(page1.status).toBe(200);
    expect(page1.body.suppressions).toHaveLength(100);
    expect(page1.body).toMatchObject({ page: 1, hasMore: true });
    expect(page1.body.suppressions[0]).toEqual({ phoneNumber: "+12125551149", reason: null, source: "call", createdAt: new Date(base + 149 * 60_000).toISOString() });
    const page2 = await list(apiKey, { page: 2 });
    expect(page2.body.suppressions).toHaveLength(50);
    expect(page2.body).toMatchObject({ page: 2, hasMore: false });
    expect(page2.body.suppressions.at(-1).phoneNumber).toBe("+12125551000");
    expect((await list(apiKey, { page: 3 })).body).toEqual({ suppressions: [], page: 3, hasMore: false });

    for (const form of ["(212) 555-1042", "2125551042", "+1 212 555 1042", "0012125551042"]) {
      const filtered = await list(apiKey, { phoneNumber: form });
      expect(filtered.body.suppressions.map((s: { phoneNumber: string }) => s.phoneNumber), form).toEqual(["+12125551042"]);
    }
    expect((await list(apiKey, { phoneNumber: "+12125559999" })).body).toEqual({ suppressions: [], page: 1, hasMore: false });
  });

  it("refuses a bad filter or page with 400", async () => {
    const { apiKey } = await createTestOrganization(db);
    expect((await list(apiKey, { phoneNumber: "call me" })).body).toEqual({ error: "INVALID_PHONE_NUMBER", message: expect.any(String) });
    expect((await list(apiKey, { phoneNumber: "1".repeat(65) })).body.error).toBe("INVALID_REQUEST");
    for (const page of ["0", "1e3", "-1", "abc"]) expect((await list(apiKey, { page })).status, page).toBe(400);
  });

  it("never shows or touches another organization's list", async () => {
    const mine = await createTestOrganization(db);
    const theirs = await createTestOrganization(db);
    await add(theirs.apiKey, { phoneNumbers: ["+14155550177"] });
    expect((await list(mine.apiKey)).body.suppressions).toEqual([]);
    expect((await list(mine.apiKey, { phoneNumber: "+14155550177" })).body.suppressions).toEqual([]);
    expect((await remove(mine.apiKey, "%2B14155550177")).body.error).toBe("SUPPRESSION_NOT_FOUND");
    expect((await list(theirs.apiKey)).body.suppressions).toHaveLength(1);
    // The same number added by both: two entries, one per organization.
    expect((await add(mine.apiKey, { phoneNumbers: ["+14155550177"] })).body.added).toBe(1);
  });
});

describe("DELETE /suppressions/{phoneNumber}", () => {
  it("removes a URL-encoded E.164 number, then 404 SUPPRESSION_NOT_FOUND", async () => {
    const { apiKey, organization } = await createTestOrganization(db);
    await add(apiKey, { phoneNumbers: ["+14155550171", "+14155550172"] });
    const res = await remove(apiKey, encodeURIComponent("+14155550171"));
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ success: true });
    expect((await entriesOf(organization.id)).map((row) => row.phoneNumber)).toEqual(["+14155550172"]);
    expect(await remove(apiKey, "%2B14155550171")).toMatchObject({ status: 404, body: { error: "SUPPRESSION_NOT_FOUND", message: expect.any(String) } });
    // A literal "+" in the path is the same number.
    expect((await remove(apiKey, "+14155550172")).status).toBe(200);
    expect((await remove(apiKey, "not-a-number")).body.error).toBe("INVALID_PHONE_NUMBER");
    expect((await remove(apiKey, "1".repeat(80))).status).toBe(400);
  });
});

describe("the suppression list and enrollment", () => {
  it("numbers added by the API are refused at enrollment (409 OPTED_OUT, bulk OPTED_OUT); removed ones are accepted again", async () => {
    const { apiKey, agent } = await setupEnrollment(db);
    await add(apiKey, { phoneNumbers: ["(415) 555-0171"] });
    const single = await api(`/agents/${agent.id}/schedule/sequence`, {
      method: "POST",
      key: apiKey,
      body: { name: "Ada", phoneNumber: "+14155550171", company_name: "Acme" },
    });
    expect(single.body.error).toBe("OPTED_OUT");
    const bulk = await api(`/agents/${agent.id}/schedule/sequences`, {
      method: "POST",
      key: apiKey,
      body: { contacts: [{ name: "Ada", phoneNumber: "4155550171", company_name: "Acme" }, { name: "Bob", phoneNumber: "4155550172", company_name: "Acme" }] },
    });
    expect(bulk.status).toBe(202);
    expect(bulk.body.rejected).toEqual([{ index: 0, phoneNumber: "4155550171", reason: "OPTED_OUT", error: expect.any(String) }]);

    await remove(apiKey, "%2B14155550171");
    const again = await api(`/agents/${agent.id}/schedule/sequence`, {
      method: "POST",
      key: apiKey,
      body: { name: "Ada", phoneNumber: "+14155550171", company_name: "Acme" },
    });
    expect(again.status).toBe(201);
  });

  it("keeps opt-outs recorded before the list had sources as source `call`", async () => {
    const { apiKey, organization, agent } = await setupEnrollment(db);
    // What finalizeCall writes for an Opted Out result (no source given): the migration's default.
    await db.insert(optOuts).values({ organizationId: organization.id, phoneNumber: "+14155550175", sourceCallId: "call.x" });
    expect((await list(apiKey)).body.suppressions).toEqual([{ phoneNumber: "+14155550175", reason: null, source: "call", createdAt: expect.any(String) }]);
    const [row] = await db.select().from(sequences).where(and(eq(sequences.agentId, agent.id)));
    expect(row).toBeUndefined();
    expect(await db.select().from(calls).where(eq(calls.agentId, agent.id))).toEqual([]);
  });
});

describe("console procedures", () => {
  it("support adds, members read, only admins remove; imports are recorded with source `import`", async () => {
    const { organization, as } = await createOrgWithRoles(db);
    await expect(as("member").suppressions.add({ phoneNumbers: ["+14155550171"] })).rejects.toMatchObject({ code: "FORBIDDEN" });
    expect(await as("support").suppressions.add({ phoneNumbers: ["+14155550171"], reason: "called in" })).toEqual({ added: 1, alreadySuppressed: 0, rejected: [] });
    expect(await as("support").suppressions.import({ phoneNumbers: ["+14155550172", "nope"] })).toMatchObject({ added: 1, rejected: [{ index: 1 }] });
    expect((await as("member").suppressions.list({})).suppressions.map((s) => [s.phoneNumber, s.source]).sort()).toEqual([
      ["+14155550171", "console"],
      ["+14155550172", "import"],
    ]);
    await expect(as("support").suppressions.remove({ phoneNumber: "+14155550171" })).rejects.toMatchObject({ code: "FORBIDDEN" });
    expect(await as("admin").suppressions.remove({ phoneNumber: "+14155550171" })).toEqual({ success: true });
    const rows = await entriesOf(organization.id);
    expect(rows.map((row) => row.createdBy?.split(":")[0])).toEqual(["user"]);
  });

  it("exports the whole list in number order, chunk by chunk", async () => {
    const { as, organization } = await createOrgWithRoles(db);
    await db.insert(optOuts).values(Array.from({ length: 12 }, (_, i) => ({ organizationId: organization.id, phoneNumber: `+1312555${String(1011 - i)}` })));
    const exported = await as("member").suppressions.export({ afterPhoneNumber: null });
    expect(exported.nextAfter).toBeNull();
    expect(exported.suppressions.map((s) => s.phoneNumber)).toEqual(Array.from({ length: 12 }, (_, i) => `+1312555${1000 + i}`));
  });
});
