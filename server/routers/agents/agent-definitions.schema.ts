import { z } from "zod";
import { ZAgentIdSchema, ZExtractedVariableSchema, ZInputVariableSchema, ZOutcomeSchema } from "@/server/schemas/agent";
import type { Meta } from "@/server/trpc/init";

const agentErrors = { 401: "Missing or invalid API key", 404: "Unknown agent, or an agent of another organization (AGENT_NOT_FOUND)" };

export const ZAgentPathRequestSchema = z.object({ agentId: ZAgentIdSchema });

export const listInputVariablesMeta: Meta = {
  openapi: {
    method: "GET",
    path: "/agents/{agentId}/input-variables",
    tags: ["Agents"],
    summary: "List input variables",
    description: "Non-deleted input variable definitions. Each slug is the key used when scheduling a sequence.",
    protect: true,
    errorResponses: agentErrors,
  },
};
export const ZListInputVariablesResponseSchema = z.object({ inputVariables: z.array(ZInputVariableSchema) });

export const listExtractedVariablesMeta: Meta = {
  openapi: {
    method: "GET",
    path: "/agents/{agentId}/extracted-variables",
    tags: ["Agents"],
    summary: "List extracted variables",
    description: "Non-deleted, customer-defined extraction variables, with dropdown and DATE/TIME configuration.",
    protect: true,
    errorResponses: agentErrors,
  },
};
export const ZListExtractedVariablesResponseSchema = z.object({ extractedVariables: z.array(ZExtractedVariableSchema) });

export const listOutcomesMeta: Meta = {
  openapi: {
    method: "GET",
    path: "/agents/{agentId}/outcomes",
    tags: ["Agents"],
    summary: "List outcomes",
    description: "Enabled, customer-defined outcome definitions; map `callResult.outcomes[].name` back to them. Also a key check.",
    protect: true,
    errorResponses: agentErrors,
  },
};
export const ZListOutcomesResponseSchema = z.object({ outcomes: z.array(ZOutcomeSchema) });
