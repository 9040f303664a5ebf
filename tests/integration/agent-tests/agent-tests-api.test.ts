import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runAgentTests } from "@/inngest/functions/run-agent-tests";
import type { RateLimitStore } from "@/server/http/rate-limit";
import { demoAgentConfig } from "@/server/seed/demo-seed";
import { createAgent } from "@/server/services/agents/create-agent";
import { simulatorBookingConfig } from "@/server/services/calendar/simulator-fixtures";
import { stopEmbeddedOpenAiSimulator } from "@/server/simulators/openai-realtime/embedded";
import { createTestOrganization } from "../../factories";
import { apiClient } from "../../helpers/api";
import { useTestDb } from "../../helpers/db";
import { startTestInngest, type TestInngest } from "../../helpers/inngest";
import { createConnectedOrganization, useChiliPiperSimulator } from "../meetings/helpers";

const db = useTestDb();
/** The flow makes more than 10 requests a second with one key: the rate limit is not what this file tests. */
const unlimitedKeys: RateLimitStore = { hit: async (_subject, _policy, nowMs) => ({ allowed: true, hits: [nowMs] }) };
const api = apiClient(db, { rateLimits: { keyStore: unlimitedKeys } });
const sim = useChiliPiperSimulator();
let runner: TestInngest;

beforeAll(async () => {
  runner = await startTestInngest({ db, functions: [runAgentTests] });
});
afterAll(async () => {
  await runner?.stop();
  await stopEmbeddedOpenAiSimulator();
});

const PROMPT = "You are Ava from Northwind. Introduce yourself, learn about the contact's needs and book a short follow-up meeting.";

function agentDocument(prompt: string) {
  return {
    name: "Ava",
    status: "ACTIVE",
    timezones: ["America/New_York"],
    phoneNumbers: [],
    steps: [{ stepType: "CALL", delaySeconds: 0, delaySecondsMax: null, executionWindowConfig: { dayOffset: 0, timeWindow: { startTime: 0, endTime: 1440 }, timezoneSource: "contact" } }],
    prompt,
    bookingConfig: simulatorBookingConfig("link"),
    inputVariables: [{ slug: "company_name", displayName: "Company name", description: "", required: true }],
    extractedVariables: [
      { slug: "interest_level", displayName: "Interest level", description: "", type: "DROPDOWN", dropdownOptions: ["high", "medium", "low"] },
      { slug: "budget", displayName: "Budget", description: "", type: "NUMBER" },
    ],
    outcomes: [
      { name: "Meeting booked", description: "A follow-up meeting was booked.", enabled: true },
      { name: "Interested", description: "Interested, no meeting yet.", enabled: true },
      { name: "Not interested", description: "Declined.", enabled: true },
    ],
  };
}

const CASES = [
  {
    name: "Agrees to a Tuesday meeting",
    persona: "Operations manager, happy to talk. Agrees to a meeting on Tuesday morning.\ninterest level: high\nbudget: 5000",
    contact: { name: "Jordan Lee", email: "jordan.lee@crm.example.com" },
    inputVariables: { company_name: "Northwind" },
    expectations: {
      resultType: "Goal Completed",
      outcomes: ["Meeting booked"],
      extractedVariables: [
        { slug: "interest_level", match: { type: "oneOf", values: ["high", "medium"] } },
        { slug: "budget", match: { type: "regex", pattern: "^\\d+$" } },
      ],
      toolsCalled: ["book_meeting"],
      toolsNotCalled: ["opt_out"],
      meetingBooked: true,
      maxTurns: 14,
    },
  },
  {
    name: "Asks to stop calling",
    persona: "Annoyed. Asks to stop calling.",
    expectations: { resultType: "Opted Out", toolsCalled: ["opt_out"], toolsNotCalled: ["book_meeting"], meetingBooked: false },
  },
  {
    name: "Busy, call next week",
    persona: "Busy, asks to be called next week.",
    expectations: { resultType: "Goal Not Completed", toolsCalled: ["end_call"], toolsNotCalled: ["book_meeting", "opt_out"], maxTurns: 6 },
  },
];

async function runTests(key: string, agentId: string, body: Record<string, unknown> = {}) {
  const started = await api(`/agents/${agentId}/tests/runs`, { method: "POST", key, body });
  expect(started.status, started.text).toBe(202);
  expect(started.body).toMatchObject({ status: "queued", total: expect.any(Number), passRate: null });
  await runner.drain();
  const run = await api(`/agents/${agentId}/tests/runs/${started.body.runId}`, { key });
  expect(run.status, run.text).toBe(200);
  expect(run.body.status).toBe("completed");
  return run.body;
}

describe("agent tests through /api/v1", () => {
  it("creates an agent, adds cases, runs them (pass), breaks one with a prompt change (fail, with the reason), and passes again on the old version", async () => {
    const { apiKey: key } = await createConnectedOrganization(db, sim.current);
    const created = await api("/agents", { method: "POST", key, body: agentDocument(PROMPT) });
    expect(created.status, created.text).toBe(201);
    const { agentId, promptVersionId: firstVersion } = created.body;
    expect(firstVersion).toMatch(/^prompt-ver\./);

    for (const testCase of CASES) {
      const res = await api(`/agents/${agentId}/tests/cases`, { method: "POST", key, body: testCase });
      expect(res.status, res.text).toBe(201);
      expect(res.body.testCaseId).toMatch(/^test-case\./);
    }
    expect((await api(`/agents/${agentId}/tests/cases`, { key })).body.testCases).toHaveLength(3);

    const first = await runTests(key, agentId);
    expect(first.results.map((result: { name: string; status: string; reason: string | null }) => [result.name, result.status, result.reason])).toEqual(CASES.map((testCase) => [testCase.name, "passed", null]));
    expect(first).toMatchObject({ promptVersionId: firstVersion, passed: 3, failed: 0, passRate: 1 });
    const booked = first.results[0];
    expect(booked.toolCalls.map((call: { name: string }) => call.name)).toEqual(["book_meeting", "end_call"]);
    expect(booked.callResult).toMatchObject({ resultType: "Goal Completed", extractedVariables: { interest_level: "high", budget: 5000 }, followUpMeetingDetails: expect.any(Object) });
    expect(booked.transcript[0]).toEqual({ speaker: "customer", text: "Hello?" });

    // The prompt now forbids booking: the meeting case fails, and says why.
    const updated = await api(`/agents/${agentId}`, { method: "PUT", key, body: agentDocument(`${PROMPT}\nNever book meetings yourself: a colleague follows up by email.`) });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body).toMatchObject({ promptChanged: true });
    const secondVersion = updated.body.promptVersionId;
    expect(secondVersion).not.toBe(firstVersion);
    // The same document again keeps the version and the definitions.
    const again = await api(`/agents/${agentId}`, { method: "PUT", key, body: agentDocument(`${PROMPT}\nNever book meetings yourself: a colleague follows up by email.`) });
    expect(again.body).toMatchObject({ promptVersionId: secondVersion, promptChanged: false });
    expect((await api(`/agents/${agentId}/outcomes`, { key })).body.outcomes).toHaveLength(3);

    const second = await runTests(key, agentId);
    expect(second).toMatchObject({ promptVersionId: secondVersion, passed: 2, failed: 1 });
    const broken = second.results.find((result: { name: string }) => result.name === CASES[0]!.name);
    expect(broken.status).toBe("failed");
    expect(broken.reason).toBe("tool book_meeting called: tools called: end_call");
    expect(broken.checks.filter((check: { passed: boolean }) => !check.passed)).toEqual([
      { expectation: "tool book_meeting called", passed: false, reason: "tools called: end_call" },
      { expectation: "meeting booked", passed: false, reason: "no meeting was booked" },
    ]);

    const versions = await api(`/agents/${agentId}/prompt-versions`, { key });
    expect(versions.status).toBe(200);
    // Newest first, each numbered among all of the agent's versions (what the console calls them).
    expect(versions.body.versions.map((v: { promptVersionId: string; number: number; passRate: number | null; current: boolean }) => [v.promptVersionId, v.number, v.passRate, v.current])).toEqual([
      [secondVersion, 2, 0.667, true],
      [firstVersion, 1, 1, false],
    ]);
    const diff = await api(`/agents/${agentId}/prompt-versions/diff`, { key, query: { from: firstVersion, to: secondVersion } });
    expect(diff.body.lines).toEqual([
      { kind: "same", text: PROMPT },
      { kind: "added", text: "Never book meetings yourself: a colleague follows up by email." },
    ]);

    // Roll back: the old version is current again and everything passes.
    const current = await api(`/agents/${agentId}/prompt-versions/${firstVersion}/current`, { method: "POST", key });
    expect(current.status, current.text).toBe(200);
    expect(current.body).toEqual({ agentId, promptVersionId: firstVersion });
    const third = await runTests(key, agentId);
    expect(third).toMatchObject({ promptVersionId: firstVersion, passed: 3, failed: 0 });
    // A run can also name a version that is not current.
    const named = await runTests(key, agentId, { promptVersionId: secondVersion, testCaseIds: [first.results[0].testCaseId] });
    expect(named).toMatchObject({ promptVersionId: secondVersion, total: 1, failed: 1 });

    const history = await api(`/agents/${agentId}/tests/runs`, { key, query: { limit: 2 } });
    expect(history.body.runs.map((run: { runId: string }) => run.runId)).toEqual([named.runId, third.runId]);
    expect(history.body.hasMore).toBe(true);
  });
});

describe("agents as code", () => {
  it("GET /agents/{agentId}/config can be sent back with PUT as it is: same version, same definitions (system defaults left be)", async () => {
    const { organization, apiKey: key } = await createConnectedOrganization(db, sim.current);
    const agent = await createAgent(db, { organizationId: organization.id, ...demoAgentConfig("Demo agent") });
    const document = (await api(`/agents/${agent.id}/config`, { key })).body;
    expect(document.extractedVariables.some((variable: { systemDefault: boolean }) => variable.systemDefault)).toBe(true);
    const { agentId: _id, createdAt: _c, updatedAt: _u, promptVersionId: _p, promptVersions: _v, ...editable } = document;
    const put = await api(`/agents/${agent.id}`, { method: "PUT", key, body: editable });
    expect(put.status, put.text).toBe(200);
    expect(put.body).toEqual({ agentId: agent.id, promptVersionId: document.promptVersionId, promptChanged: false });
    const after = (await api(`/agents/${agent.id}/config`, { key })).body;
    expect(after.extractedVariables).toEqual(document.extractedVariables);
    expect(after.inputVariables).toEqual(document.inputVariables);
    expect(after.outcomes).toEqual(document.outcomes);
    // Without IDs (a file kept in a repository): matched by slug and name, nothing duplicated.
    const withoutIds = {
      ...editable,
      inputVariables: editable.inputVariables.map(({ id: _x, ...rest }: { id: string }) => rest),
      extractedVariables: editable.extractedVariables.map(({ id: _x, systemDefault: _s, ...rest }: { id: string; systemDefault: boolean }) => rest),
      outcomes: editable.outcomes.map(({ id: _x, customerDefined: _d, ...rest }: { id: string; customerDefined: boolean }) => rest),
    };
    expect((await api(`/agents/${agent.id}`, { method: "PUT", key, body: withoutIds })).status).toBe(200);
    const again = (await api(`/agents/${agent.id}/config`, { key })).body;
    expect(again.extractedVariables).toEqual(document.extractedVariables);
    expect(again.inputVariables).toEqual(document.inputVariables);
    expect(again.outcomes.filter((outcome: { customerDefined: boolean }) => outcome.customerDefined)).toEqual(document.outcomes.filter((outcome: { customerDefined: boolean }) => outcome.customerDefined));
  });
});

describe("bad input gets {error, message}", () => {
  it("unknown agent, another organization's agent, a case without expectations, 1,000 cases in one run", async () => {
    const { organization, apiKey: key } = await createConnectedOrganization(db, sim.current);
    const other = await createTestOrganization(db);
    const mine = await api("/agents", { method: "POST", key, body: agentDocument(PROMPT) });
    const theirs = await api("/agents", { method: "POST", key: other.apiKey, body: { ...agentDocument(PROMPT), bookingConfig: null } });
    expect(theirs.status, theirs.text).toBe(201);
    expect(organization.id).toBeTruthy();

    const unknown = await api("/agents/agent.01jfczz8x3q4w5e6r7t8y9u0zz/tests/cases", { method: "POST", key, body: CASES[1] });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error: "AGENT_NOT_FOUND", message: expect.stringContaining("was not found") });
    for (const [method, path, body] of [
      ["POST", `/agents/${theirs.body.agentId}/tests/cases`, CASES[1]],
      ["GET", `/agents/${theirs.body.agentId}/tests/cases`, undefined],
      ["POST", `/agents/${theirs.body.agentId}/tests/runs`, {}],
      ["PUT", `/agents/${theirs.body.agentId}`, agentDocument(PROMPT)],
      ["GET", `/agents/${theirs.body.agentId}/prompt-versions`, undefined],
    ] as const) {
      const res = await api(path, { method, key, body });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body).toEqual({ error: "AGENT_NOT_FOUND", message: expect.any(String) });
    }

    const agentId = mine.body.agentId;
    const empty = await api(`/agents/${agentId}/tests/cases`, { method: "POST", key, body: { name: "Nothing", persona: "Says hello.", expectations: {} } });
    expect(empty.status).toBe(400);
    expect(empty.body).toEqual({
      error: "INVALID_REQUEST",
      message: expect.stringMatching(/^expectations: a test case needs at least one expectation/),
      details: { issues: [{ path: "expectations", message: expect.stringMatching(/^a test case needs at least one expectation/) }] },
    });
    const badSlug = await api(`/agents/${agentId}/tests/cases`, { method: "POST", key, body: { ...CASES[1], expectations: { extractedVariables: [{ slug: "nope", match: { type: "exact", value: "x" } }] } } });
    expect(badSlug.body).toEqual({
      error: "INVALID_REQUEST",
      message: expect.stringContaining('"nope" is not an extraction variable'),
      details: { issues: [{ path: "expectations.extractedVariables.0.slug", message: '"nope" is not an extraction variable of this agent.' }] },
    });

    const noCases = await api(`/agents/${agentId}/tests/runs`, { method: "POST", key, body: {} });
    expect(noCases.status).toBe(400);
    expect(noCases.body).toEqual({ error: "INVALID_REQUEST", message: expect.stringContaining("no test cases") });

    const thousand = Array.from({ length: 1000 }, (_, i) => `test-case.${String(i).padStart(26, "0")}`);
    const tooMany = await api(`/agents/${agentId}/tests/runs`, { method: "POST", key, body: { testCaseIds: thousand } });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body).toEqual({ error: "TOO_MANY_TEST_CASES", message: "A run takes at most 100 test cases; 1000 were given. Split them across runs." });

    const missingCase = await api(`/agents/${agentId}/tests/runs`, { method: "POST", key, body: { testCaseIds: ["test-case.nope"] } });
    expect(missingCase.status).toBe(404);
    expect(missingCase.body.error).toBe("TEST_CASE_NOT_FOUND");
    const missingRun = await api(`/agents/${agentId}/tests/runs/test-run.nope`, { key });
    expect(missingRun.body).toEqual({ error: "TEST_RUN_NOT_FOUND", message: expect.any(String) });
    const missingVersion = await api(`/agents/${agentId}/prompt-versions/prompt-ver.nope/current`, { method: "POST", key });
    expect(missingVersion.body).toEqual({ error: "PROMPT_VERSION_NOT_FOUND", message: expect.any(String) });
  });
});
