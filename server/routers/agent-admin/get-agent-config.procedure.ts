import { getAgentConfig } from "@/server/services/agent-admin/get-agent-config";
import { requireRole } from "@/server/trpc/init";
import { ZConsoleAgentSchema, ZGetAgentConfigRequestSchema } from "./agent-admin.schema";

export const getAgentConfigProcedure = requireRole("member", { sessionOnly: true })
  .input(ZGetAgentConfigRequestSchema)
  .output(ZConsoleAgentSchema)
  .query(({ ctx, input }) => getAgentConfig(ctx.db, { organizationId: ctx.auth.organizationId, agentId: input.agentId }));
