import { listOutcomes } from "@/server/services/agents/list-definitions";
import { orgProcedure } from "@/server/trpc/init";
import { listOutcomesMeta, ZAgentPathRequestSchema, ZListOutcomesResponseSchema } from "./agent-definitions.schema";

export const listOutcomesProcedure = orgProcedure
  .meta(listOutcomesMeta)
  .input(ZAgentPathRequestSchema)
  .output(ZListOutcomesResponseSchema)
  .query(({ ctx, input }) => listOutcomes(ctx.db, { organizationId: ctx.auth.organizationId, agentId: input.agentId }));
