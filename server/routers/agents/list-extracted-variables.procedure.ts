import { listExtractedVariables } from "@/server/services/agents/list-definitions";
import { orgProcedure } from "@/server/trpc/init";
import {
  listExtractedVariablesMeta,
  ZAgentPathRequestSchema,
  ZListExtractedVariablesResponseSchema,
} from "./agent-definitions.schema";

export const listExtractedVariablesProcedure = orgProcedure
  .meta(listExtractedVariablesMeta)
  .input(ZAgentPathRequestSchema)
  .output(ZListExtractedVariablesResponseSchema)
  .query(({ ctx, input }) => listExtractedVariables(ctx.db, { organizationId: ctx.auth.organizationId, agentId: input.agentId }));
