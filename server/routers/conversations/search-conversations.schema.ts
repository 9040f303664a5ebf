import { z } from "zod";
import { ZAgentIdSchema } from "@/server/schemas/agent";
import { MAX_OFFSET, MAX_SEARCH_LIMIT } from "@/server/schemas/limits";
import { DEFAULT_SEARCH_LIMIT } from "@/server/services/conversations/search-conversations";
import type { Meta } from "@/server/trpc/init";
import { queryInteger, queryUtcDate } from "./query-params";

export const searchConversationsMeta: Meta = {
  openapi: {
    method: "GET",
    path: "/conversations/search/{agentId}",
    tags: ["Conversations"],
    summary: "Search conversations",
    description:
      "Sequence IDs of the agent's conversations with a call step scheduled inside the UTC window [start 00:00:00.000Z, end 23:59:59.999Z] (both days inclusive). " +
      "Ordered by the sequence's earliest call time in the window, then sequence ID, so paging with offset neither skips nor repeats over unchanged data. " +
      "Hydrate the IDs with GET /conversations/metadata/{sequenceId} or POST /recordings. " +
      "Errors: 400 INVALID_REQUEST for any missing or invalid parameter (dates not zero-padded YYYY-MM-DD or not real, end before start, limit outside 1–500, offset < 0); 404 AGENT_NOT_FOUND for an unknown agent or one of another organization.",
    protect: true,
    errorResponses: {
      400: "A missing or invalid parameter: dates not zero-padded YYYY-MM-DD or not real, end before start, limit outside 1–500, offset < 0 (INVALID_REQUEST)",
      401: "Missing or invalid API key",
      404: "Unknown agent, or an agent of another organization (AGENT_NOT_FOUND)",
    },
  },
};

export const ZSearchConversationsRequestSchema = z.object({
  agentId: ZAgentIdSchema,
  start: queryUtcDate("First day of the window, zero-padded YYYY-MM-DD, UTC, inclusive (from 00:00:00.000Z)."),
  end: queryUtcDate("Last day of the window, zero-padded YYYY-MM-DD, UTC, inclusive (through 23:59:59.999Z). Not before start."),
  limit: queryInteger({
    min: 1,
    max: MAX_SEARCH_LIMIT,
    description: `Maximum sequence IDs to return, 1 to ${MAX_SEARCH_LIMIT} (default ${DEFAULT_SEARCH_LIMIT}).`,
  }).optional(),
  offset: queryInteger({ min: 0, max: MAX_OFFSET, description: "Matching conversations to skip (default 0)." }).optional(),
});

export const ZSearchConversationsResponseSchema = z.object({
  sequenceIds: z.array(z.string()).describe("Sequence IDs (`call-sequence.<id>`) of this page, in search order."),
  hasMore: z.boolean().describe("True when more matching conversations follow this page (request offset + limit next)."),
  total: z.number().int().min(0).describe("Number of matching conversations in the whole window."),
  limit: z.number().int().min(1).describe("The page size applied."),
  offset: z.number().int().min(0).describe("The offset applied."),
});
