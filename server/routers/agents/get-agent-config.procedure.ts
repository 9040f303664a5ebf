import { getAgentConfig } from "@/server/services/agents/get-agent-config";
import { requireRole } from "@/server/trpc/init";
import { ZConsoleAgentSchema } from "@/server/schemas/agent-config";
import { ZGetAgentConfigRequestSchema, getAgentConfigMeta } from "./agent-config.schema";

export const getAgentConfigProcedure = requireRole("member")
  .meta(getAgentConfigMeta)
  .input(ZGetAgentConfigRequestSchema)
  .output(ZConsoleAgentSchema)
  .query(({ ctx, input }) => getAgentConfig(ctx.db, { organizationId: ctx.auth.organizationId, agentId: input.agentId }));
