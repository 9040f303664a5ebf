import { z } from "zod";
import { ZAgentIdSchema, ZAgentStatusSchema } from "@/server/schemas/agent";
import { ZAgentConfigSchema, ZConsoleAgentSummarySchema, ZPageInfoSchema } from "@/server/schemas/agent-config";
import { MAX_NAME_LENGTH, MAX_PAGE } from "@/server/schemas/limits";
import { boundedText as text } from "@/server/schemas/text";
import type { Meta } from "@/server/trpc/init";

const documentDescription =
  "The agent as one document, the same one the console's editor saves and validated the same way: name, status, timezones, phone numbers, steps, prompt, booking configuration, input and extracted variables, outcomes, voice settings. Definitions without an `id` are matched to existing ones by slug (variables) or name (outcomes), so a document kept in a repository can be sent again as it is.";

/* The console's agent management (dashboard only). The agent document and its views are in server/schemas/agent-config.ts. */

export const ZListConsoleAgentsRequestSchema = z.object({
  status: ZAgentStatusSchema.optional(),
  search: text(MAX_NAME_LENGTH).optional(),
  page: z.number().int().min(1).max(MAX_PAGE).default(1),
  pageSize: z.number().int().min(1).max(100).default(25).describe("Agents per page (pickers ask for 100)."),
});
export const ZListConsoleAgentsResponseSchema = z.object({ agents: z.array(ZConsoleAgentSummarySchema), pagination: ZPageInfoSchema });

export const getAgentConfigMeta: Meta = {
  openapi: {
    method: "GET",
    path: "/agents/{agentId}/config",
    tags: ["Agents"],
    summary: "Get an agent's document",
    description: `${documentDescription} Also its prompt versions (the current one marked).`,
    protect: true,
    errorResponses: { 401: "Missing or invalid API key", 404: "Unknown agent, or an agent of another organization (AGENT_NOT_FOUND)" },
  },
};
export const ZGetAgentConfigRequestSchema = z.object({ agentId: ZAgentIdSchema });

export const createAgentMeta: Meta = {
  openapi: {
    method: "POST",
    path: "/agents",
    tags: ["Agents"],
    summary: "Create an agent",
    description: `${documentDescription} The prompt becomes the agent's first prompt version.`,
    protect: true,
    errorResponses: {
      400: "INVALID_REQUEST: a field breaks a rule (the message names it, e.g. `phoneNumbers.0` not one of the organization's numbers)",
      401: "Missing or invalid API key",
      409: "NUMBER_OWNED_ELSEWHERE: a pool number belongs to another organization (the message names the field)",
    },
  },
  successStatus: 201,
};
export const ZCreateAgentRequestSchema = ZAgentConfigSchema;
export const ZCreateAgentResponseSchema = z.object({ agentId: z.string(), promptVersionId: z.string().describe("The first prompt version.") });

export const updateAgentMeta: Meta = {
  openapi: {
    method: "PUT",
    path: "/agents/{agentId}",
    tags: ["Agents"],
    summary: "Update an agent",
    description: `${documentDescription} A changed prompt becomes a new prompt version and the current one (\`promptChanged\`); the same prompt keeps the current version. Variables left out are deleted (hidden from the API); outcomes left out stay as they are (disable them with \`enabled: false\`).`,
    protect: true,
    errorResponses: {
      400: "INVALID_REQUEST: a field breaks a rule (the message names it, e.g. `phoneNumbers.0` not one of the organization's numbers)",
      401: "Missing or invalid API key",
      404: "Unknown agent, or an agent of another organization (AGENT_NOT_FOUND)",
      409: "NUMBER_OWNED_ELSEWHERE: a pool number belongs to another organization (the message names the field)",
    },
  },
};
export const ZUpdateAgentRequestSchema = ZAgentConfigSchema.extend({ agentId: ZAgentIdSchema });
export const ZUpdateAgentResponseSchema = z.object({
  agentId: z.string(),
  promptVersionId: z.string().describe("The current prompt version; new when the prompt changed."),
  promptChanged: z.boolean(),
});
