import { createTestCase } from "@/server/services/agent-tests/test-cases";
import { requireRole } from "@/server/trpc/init";
import { createTestCaseMeta, ZCreateTestCaseRequestSchema, ZCreateTestCaseResponseSchema } from "./test-cases.schema";

export const createTestCaseProcedure = requireRole("admin")
  .meta(createTestCaseMeta)
  .input(ZCreateTestCaseRequestSchema)
  .output(ZCreateTestCaseResponseSchema)
  .mutation(({ ctx, input }) => {
    const { agentId, ...testCase } = input;
    return createTestCase(ctx.db, { organizationId: ctx.auth.organizationId, agentId, input: testCase, now: ctx.now() });
  });
