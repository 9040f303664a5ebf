import { listRuns } from "@/server/services/jobs/list-runs";
import { jobsProcedure } from "./jobs-access";
import { ZListRunsRequestSchema, ZListRunsResponseSchema } from "./list-runs.schema";
import { serializeRunSummary } from "./serialize";

/** Background-job runs: an organization's admins see runs about its entities; operators may ask for all (jobs-access.ts). */
export const listRunsProcedure = jobsProcedure
  .input(ZListRunsRequestSchema)
  .output(ZListRunsResponseSchema)
  .query(async ({ ctx, input }) => {
    const { scope: _scope, ...filters } = input;
    const { runs, nextCursor } = await listRuns(ctx.db, { ...filters, organizationId: ctx.jobsOrganizationId });
    return { runs: runs.map(serializeRunSummary), nextCursor };
  });
