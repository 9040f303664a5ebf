import { z } from "zod";
import { assertAgentInOrganization } from "@/db/queries/agents";
import { orgProcedure } from "@/server/trpc/init";
import { ZAgentPathRequestSchema } from "./agent-definitions.schema";

/** Backs `HEAD /agents/{agentId}/schedule/sequence(s)`: key valid and agent reachable, nothing scheduled. */
export const checkAccessProcedure = orgProcedure
  .input(ZAgentPathRequestSchema)
  .output(z.object({ ok: z.literal(true) }))
  .query(async ({ ctx, input }) => {
    await assertAgentInOrganization(ctx.db, { organizationId: ctx.auth.organizationId, agentId: input.agentId });
    return { ok: true as const };
  });
