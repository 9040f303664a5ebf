import { getTestCase } from "@/server/services/agent-tests/test-cases";
import { requireRole } from "@/server/trpc/init";
import { getTestCaseMeta, ZTestCasePathSchema, ZGetTestCaseResponseSchema } from "./test-cases.schema";

export const getTestCaseProcedure = requireRole("member")
  .meta(getTestCaseMeta)
  .input(ZTestCasePathSchema)
  .output(ZGetTestCaseResponseSchema)
  .query(({ ctx, input }) => getTestCase(ctx.db, { organizationId: ctx.auth.organizationId, ...input }));
