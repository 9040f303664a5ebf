import { z } from "zod";
import { queryInteger } from "@/server/routers/conversations/query-params";
import { ZAgentSummarySchema } from "@/server/schemas/agent";
import { ZAgentCallingLimitsSchema } from "@/server/schemas/calling-limits";
import { MAX_PAGE } from "@/server/schemas/limits";
import { idText } from "@/server/schemas/text";
import type { Meta } from "@/server/trpc/init";

export const listAgentsMeta: Meta = {
  openapi: {
    method: "GET",
    path: "/agents",
    tags: ["Agents"],
    summary: "List agents",
    description: "Lists the organization's agents (active, paused and archived), 100 per page, oldest first.",
    protect: true,
    errorResponses: { 400: "Invalid query", 401: "Missing or invalid API key", 403: "orgId does not match the key (ORG_MISMATCH)" },
  },
};

export const ZListAgentsRequestSchema = z.object({
  orgId: idText().describe("Identity-provider organization ID; must match the organization of the API key."),
  page: queryInteger({ min: 1, max: MAX_PAGE, description: "One-based page number (default 1)." }).optional(),
});

/** The summary plus additive fields (issue 17): the agent's calling limits and why it is paused. */
export const ZListedAgentSchema = ZAgentSummarySchema.extend({
  callingLimits: ZAgentCallingLimitsSchema,
  pauseReason: z.string().nullable().describe("Why the agent is PAUSED, when a reason was recorded (auto-pause records one); null otherwise."),
});

export const ZListAgentsResponseSchema = z.object({
  agents: z.array(ZListedAgentSchema),
  pagination: z.object({
    page: z.number().int(),
    pageSize: z.number().int().describe("Always 100."),
    totalItems: z.number().int(),
    totalPages: z.number().int(),
    hasMore: z.boolean(),
  }),
});
