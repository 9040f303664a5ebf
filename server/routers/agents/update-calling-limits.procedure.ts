import { updateAgentCallingLimits } from "@/server/services/agents/calling-limits";
import { requireRole } from "@/server/trpc/init";
import { ZUpdateCallingLimitsRequestSchema, ZUpdateCallingLimitsResponseSchema } from "./calling-limits.schema";

/** Console, admins: change an agent's calling limits; fields left out keep their value. */
export const updateCallingLimitsProcedure = requireRole("admin", { sessionOnly: true })
  .input(ZUpdateCallingLimitsRequestSchema)
  .output(ZUpdateCallingLimitsResponseSchema)
  .mutation(({ ctx, input }) => {
    const { agentId, ...changes } = input;
    return updateAgentCallingLimits(ctx.db, { organizationId: ctx.auth.organizationId, agentId, changes, now: ctx.now() });
  });
