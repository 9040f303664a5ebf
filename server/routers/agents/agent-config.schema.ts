import { z } from "zod";
import { ZAgentIdSchema, ZAgentStatusSchema } from "@/server/schemas/agent";
import { ZAgentConfigSchema, ZConsoleAgentSummarySchema, ZPageInfoSchema } from "@/server/schemas/agent-config";
import { MAX_NAME_LENGTH, MAX_PAGE } from "@/server/schemas/limits";
import { boundedText as text } from "@/server/schemas/text";

/* The console's agent management (dashboard only). The agent document and its views are in server/schemas/agent-config.ts. */

export const ZListConsoleAgentsRequestSchema = z.object({
  status: ZAgentStatusSchema.optional(),
  search: text(MAX_NAME_LENGTH).optional(),
  page: z.number().int().min(1).max(MAX_PAGE).default(1),
  pageSize: z.number().int().min(1).max(100).default(25).describe("Agents per page (pickers ask for 100)."),
});
export const ZListConsoleAgentsResponseSchema = z.object({ agents: z.array(ZConsoleAgentSummarySchema), pagination: ZPageInfoSchema });

export const ZGetAgentConfigRequestSchema = z.object({ agentId: ZAgentIdSchema });

export const ZCreateAgentRequestSchema = ZAgentConfigSchema;
export const ZCreateAgentResponseSchema = z.object({ agentId: z.string() });

export const ZUpdateAgentRequestSchema = ZAgentConfigSchema.extend({ agentId: ZAgentIdSchema });
export const ZUpdateAgentResponseSchema = z.object({
  agentId: z.string(),
  promptVersionId: z.string().describe("The current prompt version; new when the prompt changed."),
  promptChanged: z.boolean(),
});
