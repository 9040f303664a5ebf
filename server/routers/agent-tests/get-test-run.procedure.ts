import { getTestRun } from "@/server/services/agent-tests/test-runs";
import { requireRole } from "@/server/trpc/init";
import { getTestRunMeta, ZGetTestRunRequestSchema, ZGetTestRunResponseSchema } from "./test-runs.schema";

export const getTestRunProcedure = requireRole("member")
  .meta(getTestRunMeta)
  .input(ZGetTestRunRequestSchema)
  .output(ZGetTestRunResponseSchema)
  .query(({ ctx, input }) => getTestRun(ctx.db, { organizationId: ctx.auth.organizationId, ...input }));
