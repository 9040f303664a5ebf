import { listInputVariables } from "@/server/services/agents/list-definitions";
import { orgProcedure } from "@/server/trpc/init";
import { listInputVariablesMeta, ZAgentPathRequestSchema, ZListInputVariablesResponseSchema } from "./agent-definitions.schema";

export const listInputVariablesProcedure = orgProcedure
  .meta(listInputVariablesMeta)
  .input(ZAgentPathRequestSchema)
  .output(ZListInputVariablesResponseSchema)
  .query(({ ctx, input }) => listInputVariables(ctx.db, { organizationId: ctx.auth.organizationId, agentId: input.agentId }));
