import { getAgentCallingLimits } from "@/server/services/agents/calling-limits";
import { requireRole } from "@/server/trpc/init";
import { ZGetCallingLimitsRequestSchema, ZGetCallingLimitsResponseSchema } from "./calling-limits.schema";

/** Console: an agent's calling limits and pause reason. */
export const getCallingLimitsProcedure = requireRole("member", { sessionOnly: true })
  .input(ZGetCallingLimitsRequestSchema)
  .output(ZGetCallingLimitsResponseSchema)
  .query(({ ctx, input }) => getAgentCallingLimits(ctx.db, { organizationId: ctx.auth.organizationId, agentId: input.agentId }));
