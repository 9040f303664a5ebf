import { findAgentPoolRest } from "@/server/services/numbers/health/pool-rest";
import { requireRole } from "@/server/trpc/init";
import { ZGetPoolRestRequestSchema, ZGetPoolRestResponseSchema } from "./get-pool-rest.schema";

/** Console: which of the agent's numbers rest, and why its calls wait when all of them do. */
export const getPoolRestProcedure = requireRole("member", { sessionOnly: true })
  .input(ZGetPoolRestRequestSchema)
  .output(ZGetPoolRestResponseSchema)
  .query(({ ctx, input }) => findAgentPoolRest(ctx.db, { organizationId: ctx.auth.organizationId, agentId: input.agentId, now: ctx.now() }));
