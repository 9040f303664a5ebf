import { DEFAULT_SEARCH_LIMIT, searchConversations } from "@/server/services/conversations/search-conversations";
import { orgProcedure } from "@/server/trpc/init";
import { searchConversationsMeta, ZSearchConversationsRequestSchema, ZSearchConversationsResponseSchema } from "./search-conversations.schema";

export const searchConversationsProcedure = orgProcedure
  .meta(searchConversationsMeta)
  .input(ZSearchConversationsRequestSchema)
  .output(ZSearchConversationsResponseSchema)
  .query(({ ctx, input }) =>
    searchConversations(ctx.db, {
      organizationId: ctx.auth.organizationId,
      agentId: input.agentId,
      start: input.start,
      end: input.end,
      limit: input.limit ?? DEFAULT_SEARCH_LIMIT,
      offset: input.offset ?? 0,
    }),
  );
