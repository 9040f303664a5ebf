import { startTestCall } from "@/server/services/agent-tests/test-calls";
import { requireRole } from "@/server/trpc/init";
import { ZStartTestCallRequestSchema, ZStartTestCallResponseSchema } from "./test-calls.schema";

/** A signed-in admin only: the ticket opens a live conversation with the agent's model. */
export const startTestCallProcedure = requireRole("admin", { sessionOnly: true })
  .input(ZStartTestCallRequestSchema)
  .output(ZStartTestCallResponseSchema)
  .mutation(({ ctx, input }) => {
    const { actor, organizationId } = ctx.auth;
    return startTestCall(ctx.db, {
      organizationId,
      agentId: input.agentId,
      actorUserId: actor.type === "user" ? actor.userId : null,
      contact: input.contact ?? undefined,
      inputVariables: input.inputVariables,
      now: ctx.now(),
    });
  });
