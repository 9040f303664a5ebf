import { getConversationMetadata } from "@/server/services/conversations/get-conversation-metadata";
import { orgProcedure } from "@/server/trpc/init";
import {
  getConversationMetadataMeta,
  ZGetConversationMetadataRequestSchema,
  ZGetConversationMetadataResponseSchema,
} from "./get-conversation-metadata.schema";

export const getConversationMetadataProcedure = orgProcedure
  .meta(getConversationMetadataMeta)
  .input(ZGetConversationMetadataRequestSchema)
  .output(ZGetConversationMetadataResponseSchema)
  .query(({ ctx, input }) =>
    getConversationMetadata(ctx.db, {
      organizationId: ctx.auth.organizationId,
      sequenceId: input.sequenceId,
      includeRecording: input.includeRecording ?? false,
      now: ctx.now(),
    }),
  );
