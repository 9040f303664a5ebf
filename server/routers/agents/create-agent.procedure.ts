import { createAgentFromConsole } from "@/server/services/agents/create-agent-from-console";
import { requireRole } from "@/server/trpc/init";
import { ZCreateAgentRequestSchema, ZCreateAgentResponseSchema, createAgentMeta } from "./agent-config.schema";

export const createAgentProcedure = requireRole("admin")
  .meta(createAgentMeta)
  .input(ZCreateAgentRequestSchema)
  .output(ZCreateAgentResponseSchema)
  .mutation(({ ctx, input }) => {
    const { actor, organizationId } = ctx.auth;
    return createAgentFromConsole(ctx.db, {
      organizationId,
      actorUserId: actor.type === "user" ? actor.userId : null,
      config: input,
    });
  });
