import { listAgents } from "@/server/services/agents/list-agents";
import { orgProcedure } from "@/server/trpc/init";
import { listAgentsMeta, ZListAgentsRequestSchema, ZListAgentsResponseSchema } from "./list-agents.schema";

export const listAgentsProcedure = orgProcedure
  .meta(listAgentsMeta)
  .input(ZListAgentsRequestSchema)
  .output(ZListAgentsResponseSchema)
  .query(({ ctx, input }) =>
    listAgents(ctx.db, {
      organizationId: ctx.auth.organizationId,
      callerOrgId: ctx.auth.orgId,
      requestedOrgId: input.orgId,
      page: input.page ?? 1,
    }),
  );
