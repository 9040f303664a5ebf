import { z } from "zod";
import { ZAgentIdSchema } from "@/server/schemas/agent";
import { ZPromptVersionIdSchema } from "@/server/schemas/agent-tests";
import type { Meta } from "@/server/trpc/init";

const versionErrors = { 401: "Missing or invalid API key", 404: "AGENT_NOT_FOUND (unknown agent or another organization's), PROMPT_VERSION_NOT_FOUND" };

export const listPromptVersionsMeta: Meta = {
  openapi: {
    method: "GET",
    path: "/agents/{agentId}/prompt-versions",
    tags: ["Agent tests"],
    summary: "List an agent's prompt versions",
    description: "Every saved prompt is a version (the 50 newest, newest first), with the pass rate of its latest completed test run.",
    protect: true,
    errorResponses: versionErrors,
  },
};
export const ZListPromptVersionsRequestSchema = z.object({ agentId: ZAgentIdSchema });
export const ZPromptVersionSchema = z.object({
  promptVersionId: z.string(),
  number: z.number().int().describe("The version's number among all of the agent's prompt versions: 1 is the first saved prompt."),
  createdAt: z.string(),
  current: z.boolean().describe("The version calls use now."),
  prompt: z.string(),
  passRate: z.number().nullable().describe("passed / total of the latest completed run on this version; null when none."),
  passed: z.number().int().nullable(),
  total: z.number().int().nullable(),
  lastRunId: z.string().nullable(),
  lastRunAt: z.string().nullable(),
  runs: z.number().int().describe("Completed runs on this version."),
});
export const ZListPromptVersionsResponseSchema = z.object({ currentPromptVersionId: z.string().nullable(), versions: z.array(ZPromptVersionSchema) });

export const makePromptVersionCurrentMeta: Meta = {
  openapi: {
    method: "POST",
    path: "/agents/{agentId}/prompt-versions/{promptVersionId}/current",
    tags: ["Agent tests"],
    summary: "Make a prompt version current",
    description: "Calls placed from now on use this version's prompt (e.g. roll back after a failing run). No body.",
    protect: true,
    errorResponses: versionErrors,
  },
};
export const ZMakePromptVersionCurrentRequestSchema = z.object({ agentId: ZAgentIdSchema, promptVersionId: ZPromptVersionIdSchema });
export const ZMakePromptVersionCurrentResponseSchema = z.object({ agentId: z.string(), promptVersionId: z.string() });

export const diffPromptVersionsMeta: Meta = {
  openapi: {
    method: "GET",
    path: "/agents/{agentId}/prompt-versions/diff",
    tags: ["Agent tests"],
    summary: "Diff two prompt versions",
    description: "A line diff from `from` to `to`: each line `same`, `added` or `removed`.",
    protect: true,
    errorResponses: versionErrors,
  },
};
export const ZDiffPromptVersionsRequestSchema = z.object({ agentId: ZAgentIdSchema, from: ZPromptVersionIdSchema, to: ZPromptVersionIdSchema });
export const ZDiffPromptVersionsResponseSchema = z.object({ lines: z.array(z.object({ kind: z.enum(["same", "added", "removed"]), text: z.string() })) });
