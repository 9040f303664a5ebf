import { getRun } from "@/server/services/jobs/get-run";
import { ZGetRunRequestSchema, ZGetRunResponseSchema } from "./get-run.schema";
import { jobsProcedure } from "./jobs-access";
import { iso, serializeJobError, serializeRunSummary } from "./serialize";

/** One background-job run with its steps, attempts and errors, redacted to the organization unless an operator asks for all. */
export const getRunProcedure = jobsProcedure
  .input(ZGetRunRequestSchema)
  .output(ZGetRunResponseSchema)
  .query(async ({ ctx, input }) => {
    const run = await getRun(ctx.db, { runId: input.runId, organizationId: ctx.jobsOrganizationId });
    return {
      ...serializeRunSummary(run),
      event: run.event,
      output: run.output,
      outputRedacted: run.outputRedacted,
      steps: run.steps.map((step) => ({
        ...step,
        wakeAt: iso(step.wakeAt),
        createdAt: step.createdAt.toISOString(),
        completedAt: iso(step.completedAt),
        error: serializeJobError(step.error),
      })),
      attempts: run.attempts.map((attempt) => ({ ...attempt, startedAt: attempt.startedAt.toISOString(), error: serializeJobError(attempt.error) })),
    };
  });
