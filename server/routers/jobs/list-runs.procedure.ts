import { listRuns } from "@/server/services/jobs/list-runs";
import { requireRole } from "@/server/trpc/init";
import { ZListRunsRequestSchema, ZListRunsResponseSchema } from "./list-runs.schema";
import { serializeRunSummary } from "./serialize";

/** Background-job runs (not organization data): signed-in admins only, never through an API key. */
export const listRunsProcedure = requireRole("admin", { sessionOnly: true })
  .input(ZListRunsRequestSchema)
  .output(ZListRunsResponseSchema)
  .query(async ({ ctx, input }) => {
    const { runs, nextCursor } = await listRuns(ctx.db, { ...input, organizationId: ctx.auth.organizationId });
    return { runs: runs.map(serializeRunSummary), nextCursor };
  });
