import { listTestCases } from "@/server/services/agent-tests/test-cases";
import { requireRole } from "@/server/trpc/init";
import { listTestCasesMeta, ZListTestCasesRequestSchema, ZListTestCasesResponseSchema } from "./test-cases.schema";

export const listTestCasesProcedure = requireRole("member")
  .meta(listTestCasesMeta)
  .input(ZListTestCasesRequestSchema)
  .output(ZListTestCasesResponseSchema)
  .query(({ ctx, input }) => listTestCases(ctx.db, { organizationId: ctx.auth.organizationId, agentId: input.agentId }).then((testCases) => ({ testCases })));
