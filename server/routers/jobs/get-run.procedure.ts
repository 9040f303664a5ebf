import { getRun } from "@/server/services/jobs/get-run";
import { requireRole } from "@/server/trpc/init";
import { ZGetRunRequestSchema, ZGetRunResponseSchema } from "./get-run.schema";
import { iso, serializeJobError, serializeRunSummary } from "./serialize";

/** One background-job run with its steps, attempts and errors: signed-in admins only. */
export const getRunProcedure = requireRole("admin", { sessionOnly: true })
  .input(ZGetRunRequestSchema)
  .output(ZGetRunResponseSchema)
  .query(async ({ ctx, input }) => {
    const run = await getRun(ctx.db, { runId: input.runId, organizationId: ctx.auth.organizationId });
    return {
      ...serializeRunSummary(run),
      event: run.event,
      output: run.output,
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
