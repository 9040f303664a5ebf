import { beforeAll, describe, expect, it } from "vitest";
import type { RateLimitStore } from "@/server/http/rate-limit";
import { createTestCall, createTestSequence } from "../../factories";
import { apiClient, type ApiCallOptions } from "../../helpers/api";
import { useTestDb } from "../../helpers/db";
import { setupEnrollment } from "../enrollment/helpers";

/*
 * A quick fuzz of every /api/v1 endpoint: odd values in each field (NUL, unpaired surrogates, huge strings, numbers
 * where strings go, arrays and nested objects, deep nesting) must give a 4xx in the documented shape, never a 500.
 * Each 500 it found has its own test in rest-limits.test.ts. The per-key rate limit has its own tests: this file
 * sends hundreds of requests with one key, so its calls count on a store that never refuses (the handler's
 * `rateLimits.keyStore` option).
 */
const neverRefuses: RateLimitStore = { hit: async () => ({ allowed: true, hits: [] }) };

const db = useTestDb();
const api = apiClient(db, { rateLimits: { keyStore: neverRefuses } });

const DEEP = `${"[".repeat(5_000)}${"]".repeat(5_000)}`;
/** Hundreds of requests per test: a budget for a loaded machine (about 2 s each when idle). */
const FUZZ_TIMEOUT_MS = 120_000;
const ODD_VALUES: Array<[string, unknown]> = [
  ["NUL", "a\u0000b"],
  ["unpaired surrogate", "a\udc00b"],
  ["50 kB string", "x".repeat(50_000)],
  ["exponent number", 1e3],
  ["negative", -1],
  ["fraction", 1.5],
  ["huge number", 1e300],
  ["array", ["a", { b: 1 }]],
  ["nested object", { a: { b: { c: 1 } } }],
  ["null", null],
  ["boolean", true],
  ["empty string", ""],
  ["deep nesting", "__DEEP__"],
];
const ODD_QUERY = ["\u0000", "1e3", "-1", "1.5", "+5", "99999999999999999999999", "0000-01", "0000-01-01", "9999-12-31", "x".repeat(20_000), "Infinity", "[object Object]"];

let key = "";
let paths: { agent: string; sequence: string; call: string; orgId: string };

beforeAll(async () => {
  const { organization, apiKey, agent } = await setupEnrollment(db);
  const sequence = await createTestSequence(db, { organizationId: organization.id, agentId: agent.id });
  const call = await createTestCall(db, { organizationId: organization.id, agentId: agent.id, sequenceId: sequence.id, scheduledAt: new Date() });
  key = apiKey;
  paths = { agent: agent.id, sequence: sequence.id, call: call.id, orgId: organization.orgId };
});

/** Sends the body as raw JSON (so deep nesting need not be stringified) and checks the answer's shape. */
async function probe(label: string, path: string, options: ApiCallOptions & { json?: unknown }): Promise<string | null> {
  const rawBody = options.json === undefined ? undefined : JSON.stringify(options.json).replaceAll('"__DEEP__"', DEEP);
  const res = await api(path, { ...options, key, rawBody, headers: rawBody ? { "content-type": "application/json" } : undefined });
  if (res.status >= 500) return `${label}: ${res.status} ${res.text.slice(0, 200)}`;
  if (res.status >= 400 && (typeof res.body?.error !== "string" || typeof res.body?.message !== "string")) return `${label}: shape ${res.text.slice(0, 200)}`;
  return null;
}

const contact = { name: "Ada", phoneNumber: "+14155550171", company_name: "Acme" };

describe("fuzzing every /api/v1 endpoint's fields", () => {
  it.each([
    ["single enrollment", () => [`/agents/${paths.agent}/schedule/sequence`, contact]],
    ["bulk enrollment", () => [`/agents/${paths.agent}/schedule/sequences`, { contacts: [contact], timezone: "UTC" }]],
    ["cancel", () => ["/sequences/cancel", { referenceKey: "crm_ref", referenceValue: "x" }]],
    ["recordings", () => ["/recordings", { sequenceIds: [paths.sequence], includeTranscripts: true }]],
    ["add attendees", () => [`/conversations/meetings/${paths.call}/attendees`, { attendees: [{ email: "a@b.example" }] }]],
    ["meeting cancel", () => [`/conversations/meetings/${paths.call}/cancel`, { cancellationReason: "x" }]],
  ] as Array<[string, () => [string, Record<string, unknown>]]>)(
    "%s: odd values in each body field give a 4xx {error, message}, never a 500",
    async (_name, request) => {
      const [path, body] = request();
      const problems: string[] = [];
      for (const field of [...Object.keys(body), "extra", "customVariables"]) {
        for (const [label, value] of ODD_VALUES) {
          const problem = await probe(`POST ${path} ${field}=${label}`, path, { method: "POST", json: { ...body, [field]: value } });
          if (problem) problems.push(problem);
        }
      }
      expect(problems).toEqual([]);
    },
    FUZZ_TIMEOUT_MS,
  );

  it(
    "bulk enrollment: odd values in each contact field reject that contact or the request, never a 500",
    async () => {
      const problems: string[] = [];
      for (const field of ["name", "phoneNumber", "phoneNumberExt", "timezone", "scheduledAt", "toEmailAddress", "groupByField", "customVariables", "crm_ref"]) {
        for (const [label, value] of ODD_VALUES) {
          const path = `/agents/${paths.agent}/schedule/sequences`;
          const problem = await probe(`POST bulk contacts.${field}=${label}`, path, { method: "POST", json: { contacts: [{ ...contact, [field]: value }] } });
          if (problem) problems.push(problem);
        }
      }
      expect(problems).toEqual([]);
    },
    FUZZ_TIMEOUT_MS,
  );

  it("answers odd query and path parameters with a 4xx {error, message} (or a 200), never a 500", async () => {
    const gets: Array<[string, string[], Record<string, string>]> = [
      ["/agents", ["orgId", "page"], { orgId: paths.orgId }],
      ["/credits/usage", ["month", "startDate", "endDate"], {}],
      [`/conversations/search/${paths.agent}`, ["start", "end", "limit", "offset"], { start: "2026-01-01", end: "2026-01-02" }],
      [`/conversations/metadata/${paths.sequence}`, ["includeRecording"], {}],
      [`/recordings/${paths.call}`, ["includeTranscript"], {}],
    ];
    const problems: string[] = [];
    for (const [path, names, base] of gets) {
      for (const name of names) {
        for (const value of ODD_QUERY) {
          const problem = await probe(`GET ${path} ${name}=${JSON.stringify(value.slice(0, 24))}`, path, { query: { ...base, [name]: value } });
          if (problem) problems.push(problem);
        }
      }
    }
    for (const id of ["%00", "%ED%A0%80", "%FF", "x".repeat(10_000), "..%2F..%2Fetc"]) {
      for (const path of [`/agents/${id}/outcomes`, `/conversations/metadata/${id}`, `/recordings/${id}`, `/conversations/meetings/${id}/attendees`, `/agent/${id}/call_event_sample`]) {
        const problem = await probe(`GET ${path.slice(0, 60)}`, path, {});
        if (problem) problems.push(problem);
      }
    }
    expect(problems).toEqual([]);
  }, FUZZ_TIMEOUT_MS);
});
