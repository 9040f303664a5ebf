import Papa from "papaparse";
import { describe, expect, it } from "vitest";
import {
  autoMap,
  batchIdempotencyKey,
  buildContact,
  importKeyBase,
  markFileDuplicates,
  planBatches,
  rejectedRowsCsv,
  type RowCheck,
} from "@/app/(dashboard)/[orgId]/import/csv-import";
import { parseTranscript } from "@/app/(dashboard)/[orgId]/conversations/_components/transcript";

const ok = (dialKey: string): RowCheck => ({ ok: true, dialKey, phoneNumber: dialKey.split(";")[0]!, timezone: "America/New_York" });
const bad: RowCheck = { ok: false, reason: "MISSING_NAME", error: "name is required." };

describe("CSV import mapping", () => {
  it("maps contact fields by header and agent variables by slug or display name", () => {
    const mapping = autoMap(["Full Name", "Phone", "E-mail", "TZ", "scheduled_at", "Company name", "crm_ref", "notes"], [
      { slug: "company_name", displayName: "Company name", required: true },
      { slug: "crm_ref", displayName: "CRM reference", required: false },
    ]);
    expect(mapping.fields).toEqual({ name: "Full Name", phoneNumber: "Phone", toEmailAddress: "E-mail", timezone: "TZ", scheduledAt: "scheduled_at" });
    expect(mapping.variables).toEqual([
      { column: "Company name", slug: "company_name" },
      { column: "crm_ref", slug: "crm_ref" },
    ]);
  });

  it("builds bulk contacts with empty cells left out and variables in customVariables", () => {
    const mapping = { fields: { name: "n", phoneNumber: "p", timezone: "tz" }, variables: [{ column: "c", slug: "company_name" }, { column: "x", slug: "extra" }] };
    expect(buildContact({ n: " Ada ", p: "+12015550101", tz: "", c: "Acme", x: "" }, mapping)).toEqual({
      name: "Ada",
      phoneNumber: "+12015550101",
      customVariables: { company_name: "Acme" },
    });
  });
});

describe("CSV import batches", () => {
  it("rejects later occurrences of a number anywhere in the file, unless duplicates are allowed", () => {
    const checks = [ok("+1;"), bad, ok("+2;"), ok("+1;"), ok("+1;12")];
    const marked = markFileDuplicates(checks, false);
    expect(marked.map((c) => (c.ok ? "ok" : c.reason))).toEqual(["ok", "MISSING_NAME", "ok", "DUPLICATE_PHONE_NUMBER", "ok"]);
    expect(marked[3]).toMatchObject({ error: "+1 already appears at row 1; only the first occurrence is scheduled." });
    expect(markFileDuplicates(checks, true)).toBe(checks);
  });

  it("plans fixed ranges of 1,000 rows carrying only their valid rows", () => {
    const checks = Array.from({ length: 2500 }, (_, i) => (i % 100 === 7 || (i >= 1000 && i < 2000) ? bad : ok(`+${i};`)));
    const batches = planBatches(checks);
    expect(batches.map((b) => [b.position, b.firstRow, b.lastRow, b.rows.length])).toEqual([
      [0, 0, 999, 990],
      [2, 2000, 2499, 495],
    ]);
    expect(batches[0]!.rows.slice(0, 9)).toEqual([0, 1, 2, 3, 4, 5, 6, 8, 9]);
  });

  it("derives the same keys for the same import and different ones when anything changes", async () => {
    const mapping = { fields: { name: "n", phoneNumber: "p" }, variables: [{ column: "c", slug: "company_name" }] };
    const options = { timezone: "", groupByField: "", allowDuplicates: false };
    const base = await importKeyBase({ fileDigest: "abc", agentId: "agent.1", mapping, options });
    expect(await importKeyBase({ fileDigest: "abc", agentId: "agent.1", mapping: { ...mapping, fields: { phoneNumber: "p", name: "n" } }, options })).toBe(base);
    expect(await importKeyBase({ fileDigest: "abd", agentId: "agent.1", mapping, options })).not.toBe(base);
    expect(await importKeyBase({ fileDigest: "abc", agentId: "agent.2", mapping, options })).not.toBe(base);
    expect(await importKeyBase({ fileDigest: "abc", agentId: "agent.1", mapping, options: { ...options, timezone: "UTC" } })).not.toBe(base);
    const key = batchIdempotencyKey(base, { position: 1, firstRow: 1000, lastRow: 1999, rows: [1000] });
    expect(key).toBe(`csv-import:v1:${base}:rows-1001-2000`);
    expect(key.length).toBeLessThanOrEqual(255);
  });

  it("writes rejected rows as CSV with the row number, reason and message before the uploaded columns", async () => {
    const csv = await rejectedRowsCsv(
      [{ row: 2, reason: "INVALID_PHONE_NUMBER", error: 'phoneNumber "12" is not valid, sorry' }, { row: 0, reason: "MISSING_NAME", error: "name is required." }],
      ["name", "phone", "error"],
      [{ name: "", phone: "+12015550101", error: "x" }, { name: "B", phone: "+1" }, { name: "C", phone: "12" }],
    );
    const parsed = Papa.parse<Record<string, string>>(csv, { header: true });
    expect(parsed.meta.fields).toEqual(["row", "reason", "error", "name", "phone", "error (uploaded)"]);
    expect(parsed.data).toEqual([
      { row: "1", reason: "MISSING_NAME", error: "name is required.", name: "", phone: "+12015550101", "error (uploaded)": "x" },
      { row: "3", reason: "INVALID_PHONE_NUMBER", error: 'phoneNumber "12" is not valid, sorry', name: "C", phone: "12", "error (uploaded)": "" },
    ]);
  });
});

describe("transcript turns", () => {
  it("splits `Speaker: text` lines and keeps continuation lines with their turn", () => {
    expect(parseTranscript("Agent: Hi, this is Ada.\nCustomer: Hello?\nI am busy.\n\nAgent: No problem: bye")).toEqual([
      { speaker: "Agent", text: "Hi, this is Ada." },
      { speaker: "Customer", text: "Hello?\nI am busy." },
      { speaker: "Agent", text: "No problem: bye" },
    ]);
  });
});
