import { updateTestCase } from "@/server/services/agent-tests/test-cases";
import { requireRole } from "@/server/trpc/init";
import { updateTestCaseMeta, ZUpdateTestCaseRequestSchema, ZUpdateTestCaseResponseSchema } from "./test-cases.schema";

export const updateTestCaseProcedure = requireRole("admin")
  .meta(updateTestCaseMeta)
  .input(ZUpdateTestCaseRequestSchema)
  .output(ZUpdateTestCaseResponseSchema)
  .mutation(({ ctx, input }) => {
    const { agentId, testCaseId, ...testCase } = input;
    return updateTestCase(ctx.db, { organizationId: ctx.auth.organizationId, agentId, testCaseId, input: testCase, now: ctx.now() });
  });
