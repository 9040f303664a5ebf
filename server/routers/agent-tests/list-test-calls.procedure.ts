import { listTestCalls } from "@/server/services/agent-tests/test-calls";
import { requireRole } from "@/server/trpc/init";
import { ZListTestCallsRequestSchema, ZListTestCallsResponseSchema } from "./test-calls.schema";

export const listTestCallsProcedure = requireRole("member", { sessionOnly: true })
  .input(ZListTestCallsRequestSchema)
  .output(ZListTestCallsResponseSchema)
  .query(async ({ ctx, input }) => ({ testCalls: await listTestCalls(ctx.db, { organizationId: ctx.auth.organizationId, agentId: input.agentId, now: ctx.now() }) }));
