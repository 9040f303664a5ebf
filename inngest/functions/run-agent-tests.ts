import type { Inngest } from "inngest";
import { getDb, type Db } from "@/db";
import { failTestRun, finishTestRun, runTestCases, startTestRun } from "@/server/services/agent-tests/run-test-cases";
import { inngest } from "../client";
import { agentTestRunRequested } from "../events";

export type AgentTestFunctionDependencies = { getDb: () => Db; now: () => Date };

/**
 * `agent-tests/run.requested` → plays the run's cases: one step per wave of `concurrency` cases played at once (each
 * case's result is stored as it finishes, so a retried wave plays only what is still pending), then a step that
 * counts and closes the run. A run whose function fails for good is closed `failed` with the reason.
 */
export function createRunAgentTestsFunction(client: Inngest.Any, deps: AgentTestFunctionDependencies = { getDb, now: () => new Date() }) {
  return client.createFunction(
    {
      id: "run-agent-tests",
      name: "Running an agent's test cases",
      triggers: [agentTestRunRequested],
      retries: 2,
      onFailure: async ({ event, error }) => {
        const runId = (event.data.event.data as { runId?: string }).runId;
        if (runId) await failTestRun(deps.getDb(), { runId, reason: `The run could not be completed: ${error.message.slice(0, 300)}`, now: deps.now() });
      },
    },
    async ({ event, step }) => {
      const { runId } = event.data;
      const started = await step.run("start", () => startTestRun(deps.getDb(), { runId, now: deps.now() }));
      if (!started) return { runId, skipped: true };
      for (let index = 0, wave = 0; index < started.pendingResultIds.length; index += started.concurrency, wave += 1) {
        const resultIds = started.pendingResultIds.slice(index, index + started.concurrency);
        await step.run(`wave-${wave}`, () => runTestCases(deps.getDb(), { runId, resultIds, now: deps.now }));
      }
      return step.run("finish", () => finishTestRun(deps.getDb(), { runId, now: deps.now() }));
    },
  );
}

export const runAgentTests = createRunAgentTestsFunction(inngest);
