import { z } from "zod";
import { ZAgentSummarySchema } from "@/server/schemas/agent";
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
  orgId: z.string().min(1).describe("Identity-provider organization ID; must match the organization of the API key."),
  page: z.coerce.number().int().min(1).optional().describe("One-based page number (default 1)."),
});

export const ZListAgentsResponseSchema = z.object({
  agents: z.array(ZAgentSummarySchema),
  pagination: z.object({
    page: z.number().int(),
    pageSize: z.number().int().describe("Always 100."),
    totalItems: z.number().int(),
    totalPages: z.number().int(),
    hasMore: z.boolean(),
  }),
});
