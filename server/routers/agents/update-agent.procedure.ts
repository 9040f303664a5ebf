import { updateAgentConfig } from "@/server/services/agents/update-agent-config";
import { requireRole } from "@/server/trpc/init";
import { ZUpdateAgentRequestSchema, ZUpdateAgentResponseSchema, updateAgentMeta } from "./agent-config.schema";

export const updateAgentProcedure = requireRole("admin")
  .meta(updateAgentMeta)
  .input(ZUpdateAgentRequestSchema)
  .output(ZUpdateAgentResponseSchema)
  .mutation(({ ctx, input }) => {
    const { actor, organizationId } = ctx.auth;
    const { agentId, ...config } = input;
    return updateAgentConfig(ctx.db, {
      organizationId,
      agentId,
      actorUserId: actor.type === "user" ? actor.userId : null,
      config,
      now: ctx.now(),
      // The console sends the IDs it read; a document sent to the REST API is matched by slug and name.
      matchDefinitionsByKey: ctx.source === "rest",
    });
  });
