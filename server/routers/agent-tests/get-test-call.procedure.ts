import { getTestCall } from "@/server/services/agent-tests/test-calls";
import { requireRole } from "@/server/trpc/init";
import { ZGetTestCallRequestSchema, ZTestCallSchema } from "./test-calls.schema";

export const getTestCallProcedure = requireRole("member", { sessionOnly: true })
  .input(ZGetTestCallRequestSchema)
  .output(ZTestCallSchema)
  .query(({ ctx, input }) => getTestCall(ctx.db, { organizationId: ctx.auth.organizationId, ...input, now: ctx.now() }));
