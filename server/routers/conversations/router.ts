import { router } from "@/server/trpc/init";
import { getConversationMetadataProcedure } from "./get-conversation-metadata.procedure";
import { searchConversationsProcedure } from "./search-conversations.procedure";

export const conversationsRouter = router({
  search: searchConversationsProcedure,
  metadata: getConversationMetadataProcedure,
});
