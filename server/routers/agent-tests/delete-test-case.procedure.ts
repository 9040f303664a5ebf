import { deleteTestCase } from "@/server/services/agent-tests/test-cases";
import { requireRole } from "@/server/trpc/init";
import { deleteTestCaseMeta, ZTestCasePathSchema, ZDeleteTestCaseResponseSchema } from "./test-cases.schema";

export const deleteTestCaseProcedure = requireRole("admin")
  .meta(deleteTestCaseMeta)
  .input(ZTestCasePathSchema)
  .output(ZDeleteTestCaseResponseSchema)
  .mutation(({ ctx, input }) => deleteTestCase(ctx.db, { organizationId: ctx.auth.organizationId, ...input }));
