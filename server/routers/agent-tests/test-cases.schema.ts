import { z } from "zod";
import { ZAgentIdSchema } from "@/server/schemas/agent";
import { testCaseExample, ZTestCaseIdSchema, ZTestCaseInputSchema, ZTestCaseSchema } from "@/server/schemas/agent-tests";
import type { Meta } from "@/server/trpc/init";

const agentErrors = { 401: "Missing or invalid API key", 404: "Unknown agent, or an agent of another organization (AGENT_NOT_FOUND)" };
const caseErrors = { ...agentErrors, 404: "AGENT_NOT_FOUND (unknown agent or another organization's), TEST_CASE_NOT_FOUND (not a case of this agent)" };
const invalidCase =
  "INVALID_REQUEST: a missing or mistyped field, a case without expectations, an unknown extraction variable slug, an invalid regex or timezone (the message names the field)";

export const listTestCasesMeta: Meta = {
  openapi: {
    method: "GET",
    path: "/agents/{agentId}/tests/cases",
    tags: ["Agent tests"],
    summary: "List an agent's test cases",
    description: "Every test case of the agent, oldest first. See docs/agent-testing.md.",
    protect: true,
    errorResponses: agentErrors,
  },
};
export const ZListTestCasesRequestSchema = z.object({ agentId: ZAgentIdSchema });
export const ZListTestCasesResponseSchema = z.object({ testCases: z.array(ZTestCaseSchema) });

export const createTestCaseMeta: Meta = {
  openapi: {
    method: "POST",
    path: "/agents/{agentId}/tests/cases",
    tags: ["Agent tests"],
    summary: "Add a test case",
    description:
      "A simulated conversation to run against the agent: a caller persona, input variables, and expectations on what the call-result webhook would carry (result type, outcomes, extracted variables — exact, oneOf, regex or an LLM judge with a rubric —, tools called or not, meeting booked, max turns). At least one expectation. At most 100 cases per agent (TOO_MANY_TEST_CASES).",
    protect: true,
    errorResponses: { ...agentErrors, 400: `${invalidCase}; TOO_MANY_TEST_CASES: the agent has 100 cases` },
  },
  successStatus: 201,
};
export const ZCreateTestCaseRequestSchema = ZTestCaseInputSchema.extend({ agentId: ZAgentIdSchema }).meta({ examples: [{ agentId: "agent.01jfczz8x3q4w5e6r7t8y9u0i1", ...testCaseExample }] });
export const ZCreateTestCaseResponseSchema = ZTestCaseSchema;

export const getTestCaseMeta: Meta = {
  openapi: { method: "GET", path: "/agents/{agentId}/tests/cases/{testCaseId}", tags: ["Agent tests"], summary: "Get a test case", protect: true, errorResponses: caseErrors },
};
export const ZTestCasePathSchema = z.object({ agentId: ZAgentIdSchema, testCaseId: ZTestCaseIdSchema });
export const ZGetTestCaseResponseSchema = ZTestCaseSchema;

export const updateTestCaseMeta: Meta = {
  openapi: {
    method: "PUT",
    path: "/agents/{agentId}/tests/cases/{testCaseId}",
    tags: ["Agent tests"],
    summary: "Replace a test case",
    description: "The whole case as on creation. Past runs keep the case as it was when they ran.",
    protect: true,
    errorResponses: { ...caseErrors, 400: invalidCase },
  },
};
export const ZUpdateTestCaseRequestSchema = ZTestCaseInputSchema.extend({ agentId: ZAgentIdSchema, testCaseId: ZTestCaseIdSchema });
export const ZUpdateTestCaseResponseSchema = ZTestCaseSchema;

export const deleteTestCaseMeta: Meta = {
  openapi: {
    method: "DELETE",
    path: "/agents/{agentId}/tests/cases/{testCaseId}",
    tags: ["Agent tests"],
    summary: "Delete a test case",
    description: "Past runs keep its results.",
    protect: true,
    errorResponses: caseErrors,
  },
};
export const ZDeleteTestCaseResponseSchema = z.object({ testCaseId: z.string(), deleted: z.literal(true) });
