/**
 * Agent tests in the built app behind `npm start` (embedded defaults): a seeded agent's test cases run through
 * `/api/v1` — the 202, the run-agent-tests function in Next's bundle, the OpenAI simulator started in-process on
 * demand, test-mode booking against the embedded calendar simulator — then a prompt change that breaks one case,
 * and the roll-back. What docs/agent-testing.md's CI example does, over HTTP only.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBuiltApp, waitFor, type BuiltApp } from "./harness";

let app: BuiltApp;
let agentId: string;

beforeAll(async () => {
  app = await startBuiltApp();
  agentId = app.primary.agents.find((agent) => agent.role === "link")!.agentId;
}, 300_000);

afterAll(async () => {
  await app?.stop();
});

async function runTests(body: Record<string, unknown> = {}) {
  const started = await app.api(`/agents/${agentId}/tests/runs`, { method: "POST", body });
  expect(started.status, JSON.stringify(started.body)).toBe(202);
  return waitFor(
    async () => {
      const run = await app.api(`/agents/${agentId}/tests/runs/${started.body.runId}`);
      return run.body.status === "completed" || run.body.status === "failed" ? run.body : null;
    },
    { timeoutMs: 60_000, label: "the test run to complete" },
  );
}

describe("agent tests on the built app (npm start)", () => {
  it("runs the seeded cases (pass), fails one after a prompt change with its reason, passes again after the roll-back", async () => {
    const cases = await app.api(`/agents/${agentId}/tests/cases`);
    expect(cases.body.testCases.length).toBeGreaterThanOrEqual(3);

    const first = await runTests();
    expect(first).toMatchObject({ status: "completed", failed: 0, passed: cases.body.testCases.length });
    const original = first.promptVersionId;

    const document = (await app.api(`/agents/${agentId}/config`)).body;
    const { agentId: _id, createdAt: _c, updatedAt: _u, promptVersionId: _p, promptVersions: _v, ...editable } = document;
    const updated = await app.api(`/agents/${agentId}`, { method: "PUT", body: { ...editable, prompt: `${document.prompt}\nNever book meetings: a colleague follows up.` } });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    expect(updated.body.promptChanged).toBe(true);

    const second = await runTests();
    expect(second.failed).toBe(1);
    expect(second.results.find((result: { status: string }) => result.status === "failed").reason).toBe("tool book_meeting called: tools called: end_call");

    expect((await app.api(`/agents/${agentId}/prompt-versions/${original}/current`, { method: "POST" })).status).toBe(200);
    const third = await runTests();
    expect(third).toMatchObject({ promptVersionId: original, failed: 0 });
  });
});
