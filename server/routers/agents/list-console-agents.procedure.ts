import { listConsoleAgents } from "@/server/services/agents/list-console-agents";
import { requireRole } from "@/server/trpc/init";
import { ZListConsoleAgentsRequestSchema, ZListConsoleAgentsResponseSchema } from "./agent-config.schema";

export const listConsoleAgentsProcedure = requireRole("member", { sessionOnly: true })
  .input(ZListConsoleAgentsRequestSchema)
  .output(ZListConsoleAgentsResponseSchema)
  .query(({ ctx, input }) => listConsoleAgents(ctx.db, { organizationId: ctx.auth.organizationId, ...input }));
