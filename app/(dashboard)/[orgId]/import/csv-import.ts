/**
 * The CSV import's pure parts: column mapping, contact building, file-level duplicate detection, batching and the
 * idempotency keys. No validation rule lives here: rows are checked by the server (enrollment.validateImportRows runs the
 * bulk service's own rules) and submitted through the bulk service.
 */

import { toCsv } from "../../../_components/csv";

export type ContactField = "name" | "phoneNumber" | "phoneNumberExt" | "toEmailAddress" | "timezone" | "scheduledAt";

export const CONTACT_FIELDS: Array<{ field: ContactField; label: string; hint: string; synonyms: string[] }> = [
  { field: "name", label: "Name", hint: "required", synonyms: ["name", "fullname", "contactname", "contact", "customername"] },
  { field: "phoneNumber", label: "Phone number", hint: "required, E.164 or a formatted US number", synonyms: ["phonenumber", "phone", "mobile", "mobilephone", "cell", "telephone", "tel", "number"] },
  { field: "phoneNumberExt", label: "Extension", hint: "digits", synonyms: ["phonenumberext", "extension", "ext", "phoneext"] },
  { field: "toEmailAddress", label: "Email", hint: "required when the agent sends emails", synonyms: ["toemailaddress", "email", "emailaddress", "mail"] },
  { field: "timezone", label: "Time zone", hint: "IANA; else the default below, else from the number", synonyms: ["timezone", "tz", "zone", "timezonename"] },
  { field: "scheduledAt", label: "Scheduled at", hint: "ISO 8601, in the future", synonyms: ["scheduledat", "scheduled", "scheduletime", "scheduledtime", "calltime", "callat", "datetime"] },
];

export type ColumnMapping = {
  fields: Partial<Record<ContactField, string>>;
  /** Columns sent as custom input variables, under `slug`. */
  variables: Array<{ column: string; slug: string }>;
};

export type ImportOptions = { timezone: string; groupByField: string; allowDuplicates: boolean };

export type InputVariable = { slug: string; displayName: string; required: boolean };

export const BATCH_SIZE = 1000;

export const normalizeHeader = (header: string) => header.toLowerCase().replace(/[^a-z0-9]/g, "");

/** Auto-mapping by header: contact fields by their usual names, agent input variables by slug or display name. */
export function autoMap(headers: string[], inputVariables: InputVariable[]): ColumnMapping {
  const fields: ColumnMapping["fields"] = {};
  const used = new Set<string>();
  for (const { field, synonyms } of CONTACT_FIELDS) {
    const column = synonyms.map((synonym) => headers.find((h) => !used.has(h) && normalizeHeader(h) === synonym)).find(Boolean);
    if (column) {
      fields[field] = column;
      used.add(column);
    }
  }
  const variables: ColumnMapping["variables"] = [];
  for (const variable of inputVariables) {
    const column = headers.find((h) => !used.has(h) && (normalizeHeader(h) === normalizeHeader(variable.slug) || normalizeHeader(h) === normalizeHeader(variable.displayName)));
    if (column) {
      variables.push({ column, slug: variable.slug });
      used.add(column);
    }
  }
  return { fields, variables };
}

/** A variable slug suggested for a column the agent does not declare (kept by the API, usable as a cancel reference). */
export const suggestSlug = (header: string) =>
  header
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "")
    .slice(0, 64) || "column";

/** One CSV row → one contact of a bulk request (empty cells are left out, so "missing" means missing). */
export function buildContact(row: Record<string, string | undefined>, mapping: ColumnMapping): Record<string, unknown> {
  const contact: Record<string, unknown> = {};
  for (const [field, column] of Object.entries(mapping.fields)) {
    const value = column ? row[column]?.trim() : undefined;
    if (value) contact[field] = value;
  }
  const customVariables: Record<string, string> = {};
  for (const { column, slug } of mapping.variables) {
    const value = row[column]?.trim();
    if (slug.trim() && value) customVariables[slug.trim()] = value;
  }
  if (Object.keys(customVariables).length > 0) contact.customVariables = customVariables;
  return contact;
}

export type RowCheck = { ok: true; dialKey: string; phoneNumber: string; timezone: string } | { ok: false; reason: string; error: string };

/**
 * The bulk service detects duplicates within one request; an import spans several, so the file is checked as a whole
 * the same way: the first valid occurrence of a normalized number (and extension) wins, later ones are rejected.
 */
export function markFileDuplicates(checks: RowCheck[], allowDuplicates: boolean): RowCheck[] {
  if (allowDuplicates) return checks;
  const first = new Map<string, number>();
  return checks.map((check, index) => {
    if (!check.ok) return check;
    const seen = first.get(check.dialKey);
    if (seen === undefined) {
      first.set(check.dialKey, index);
      return check;
    }
    return {
      ok: false,
      reason: "DUPLICATE_PHONE_NUMBER",
      error: `${check.phoneNumber} already appears at row ${seen + 1}; only the first occurrence is scheduled.`,
    };
  });
}

export type ImportBatch = {
  /** Position of the batch's row range in the file (rows [position × 1,000, (position + 1) × 1,000)). */
  position: number;
  firstRow: number;
  lastRow: number;
  /** File rows (0-based) sent in this batch, in order: the bulk answer's `index` points into this list. */
  rows: number[];
};

/** Fixed row ranges of 1,000, each carrying its valid rows; ranges without a valid row send nothing. */
export function planBatches(checks: RowCheck[]): ImportBatch[] {
  const batches: ImportBatch[] = [];
  for (let start = 0; start < checks.length; start += BATCH_SIZE) {
    const rows: number[] = [];
    const end = Math.min(checks.length, start + BATCH_SIZE);
    for (let i = start; i < end; i++) if (checks[i]?.ok) rows.push(i);
    if (rows.length > 0) batches.push({ position: start / BATCH_SIZE, firstRow: start, lastRow: end - 1, rows });
  }
  return batches;
}

function hex(bytes: ArrayBuffer): string {
  return [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** FNV-1a over the bytes with two seeds: only where Web Crypto is missing (plain http on a non-local host). */
function fallbackDigest(bytes: Uint8Array): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ bytes.length;
  for (let i = 0; i < bytes.length; i++) {
    a = Math.imul(a ^ bytes[i]!, 0x01000193) >>> 0;
    b = Math.imul(b ^ bytes[i]!, 0x01000193 ^ 0x5bd1e995) >>> 0;
  }
  return `${a.toString(16).padStart(8, "0")}${b.toString(16).padStart(8, "0")}-${bytes.length.toString(16)}`;
}

export async function digestBytes(bytes: Uint8Array): Promise<string> {
  if (typeof crypto !== "undefined" && crypto.subtle) return hex(await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>));
  return fallbackDigest(bytes);
}

/**
 * The base of the import's idempotency keys: the file's bytes, the agent, the mapping and the options. The same file
 * imported the same way gives the same keys, so re-submitting it (a retry, a second click, a reload and re-upload
 * within the API's 24 h replay window) schedules nobody twice; a different mapping or file is a different import.
 */
export async function importKeyBase(params: { fileDigest: string; agentId: string; mapping: ColumnMapping; options: ImportOptions }): Promise<string> {
  const mapping = {
    fields: Object.entries(params.mapping.fields).filter(([, column]) => column).sort(),
    variables: [...params.mapping.variables].filter((v) => v.slug.trim()).map((v) => [v.column, v.slug.trim()]).sort(),
  };
  const text = JSON.stringify([params.fileDigest, params.agentId, mapping, params.options]);
  return (await digestBytes(new TextEncoder().encode(text))).slice(0, 48);
}

export const batchIdempotencyKey = (base: string, batch: ImportBatch) => `csv-import:v1:${base}:rows-${batch.firstRow + 1}-${batch.lastRow + 1}`;

export type RejectedRow = { row: number; reason: string; error: string };

/** The rejected rows as CSV: row number, reason code and message first, then the row as uploaded (formulas escaped). */
export async function rejectedRowsCsv(rejected: RejectedRow[], headers: string[], rows: Array<Record<string, string | undefined>>): Promise<string> {
  const own = ["row", "reason", "error"];
  const uploaded = headers.map((header) => ({ header, title: own.includes(header) ? `${header} (uploaded)` : header }));
  const data = [...rejected]
    .sort((a, b) => a.row - b.row)
    .map((r) => {
      const source = rows[r.row] ?? {};
      return [String(r.row + 1), r.reason, r.error, ...uploaded.map(({ header }) => source[header] ?? "")];
    });
  return toCsv({ fields: [...own, ...uploaded.map((u) => u.title)], data });
}
