import { z } from "zod";
import { ZAgentIdSchema } from "@/server/schemas/agent";
import { ZPromptVersionIdSchema, ZTestCaseIdSchema, ZTestRunIdSchema, ZTestRunSchema, ZTestRunSummarySchema } from "@/server/schemas/agent-tests";
import { MAX_TEST_RUN_CONCURRENCY } from "@/server/schemas/limits";
import type { Meta } from "@/server/trpc/init";

const agentErrors = { 401: "Missing or invalid API key", 404: "Unknown agent, or an agent of another organization (AGENT_NOT_FOUND)" };

export const createTestRunMeta: Meta = {
  openapi: {
    method: "POST",
    path: "/agents/{agentId}/tests/runs",
    tags: ["Agent tests"],
    summary: "Run an agent's tests",
    description:
      "Plays the agent's test cases (all, or `testCaseIds`) as simulated conversations on a prompt version (default: the current one), in parallel (`concurrency`, default 5, at most 10), then runs the post-call analyser on each transcript and checks the expectations. Answers 202 with the run (status `queued`, results `pending`); poll `GET /agents/{agentId}/tests/runs/{runId}` until `status` is `completed`. At most 100 cases per run: more is 400 TOO_MANY_TEST_CASES. Nothing of a test is a call: never charged, counted, sent to webhooks or suppressing.",
    protect: true,
    errorResponses: {
      400: "TOO_MANY_TEST_CASES: more than 100 cases in one run; INVALID_REQUEST: no cases to run, or a mistyped field",
      401: "Missing or invalid API key",
      404: "AGENT_NOT_FOUND (unknown agent or another organization's), PROMPT_VERSION_NOT_FOUND, TEST_CASE_NOT_FOUND",
    },
  },
  successStatus: 202,
};
export const ZCreateTestRunRequestSchema = z
  .object({
    agentId: ZAgentIdSchema,
    promptVersionId: ZPromptVersionIdSchema.optional().describe("The prompt version to test; default the agent's current one."),
    testCaseIds: z.array(ZTestCaseIdSchema).min(1).max(1000).optional().describe("The cases to play (at most 100 per run); default every case of the agent."),
    concurrency: z.number().int().min(1).max(MAX_TEST_RUN_CONCURRENCY).optional().describe("Cases played at once (default 5)."),
  })
  .meta({ examples: [{ agentId: "agent.01jfczz8x3q4w5e6r7t8y9u0i1", promptVersionId: "prompt-ver.01jfczz8x3q4w5e6r7t8y9u0i2" }] });
export const ZCreateTestRunResponseSchema = ZTestRunSchema;

export const getTestRunMeta: Meta = {
  openapi: {
    method: "GET",
    path: "/agents/{agentId}/tests/runs/{runId}",
    tags: ["Agent tests"],
    summary: "Get a test run with its results",
    description:
      "The run's status and counts, and per case: pass/fail with the first failing check as `reason`, every check, the transcript, the tool calls, and callResult as the webhook would carry it. A CI job fails the build when `failed` > 0.",
    protect: true,
    errorResponses: { ...agentErrors, 404: "AGENT_NOT_FOUND, TEST_RUN_NOT_FOUND (not a run of this agent)" },
  },
};
export const ZGetTestRunRequestSchema = z.object({ agentId: ZAgentIdSchema, runId: ZTestRunIdSchema });
export const ZGetTestRunResponseSchema = ZTestRunSchema;

export const listTestRunsMeta: Meta = {
  openapi: {
    method: "GET",
    path: "/agents/{agentId}/tests/runs",
    tags: ["Agent tests"],
    summary: "List an agent's test runs",
    description: "Newest first, without per-case results. Page with `before` (the last run ID of the previous page).",
    protect: true,
    errorResponses: { ...agentErrors, 404: "AGENT_NOT_FOUND, TEST_RUN_NOT_FOUND (`before` is not a run of this agent)" },
  },
};
export const ZListTestRunsRequestSchema = z.object({
  agentId: ZAgentIdSchema,
  limit: z.coerce.number().int().min(1).max(100).default(20).describe("Runs per page (default 20)."),
  before: ZTestRunIdSchema.optional().describe("Runs older than this run."),
});
export const ZListTestRunsResponseSchema = z.object({ runs: z.array(ZTestRunSummarySchema), hasMore: z.boolean() });
