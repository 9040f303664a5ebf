import { listTestRuns } from "@/server/services/agent-tests/test-runs";
import { requireRole } from "@/server/trpc/init";
import { listTestRunsMeta, ZListTestRunsRequestSchema, ZListTestRunsResponseSchema } from "./test-runs.schema";

export const listTestRunsProcedure = requireRole("member")
  .meta(listTestRunsMeta)
  .input(ZListTestRunsRequestSchema)
  .output(ZListTestRunsResponseSchema)
  .query(({ ctx, input }) => listTestRuns(ctx.db, { organizationId: ctx.auth.organizationId, ...input }));
