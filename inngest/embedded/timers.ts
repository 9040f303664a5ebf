import { sql } from "drizzle-orm";
import type { Job, RunnerContext } from "./context";
import { completeStep, isTerminal, lockRunAndReleaseJob, rows, transaction, type ContinuationLease } from "./state";

/**
 * A timer job fired: a sleep ended (the step completes), or a wait / invoke timed out (null / an error). With
 * `lease`, the run's next discovery request is created leased to this runner (when the run has no concurrency key
 * to share) and returned, so the run goes on without a claim.
 */
export async function fireTimer(runner: RunnerContext, job: Job, lease?: ContinuationLease): Promise<number | null> {
  return transaction(runner.db, async (tx) => {
    const now = runner.now();
    const { run, released } = await lockRunAndReleaseJob(tx, job, now);
    if (!released || !run || isTerminal(run.status)) return null;
    const continuation = run.concurrency.length === 0 ? lease : undefined;
    const info = { stepId: job.stepId, displayName: job.stepId, op: "Sleep" };
    const slept = await completeStep(tx, run, job.stepId, { data: null }, info, now, { onlyIf: ["sleeping", "waiting"], lease: continuation });
    if (slept.completed) return slept.continuationJobId;
    const [invoking] = await rows<{ invoke_run_id: string | null }>(
      tx,
      sql`select invoke_run_id from inngest_steps where run_id = ${run.id} and hashed_id = ${job.stepId} and status = 'invoking' for update`,
    );
    if (!invoking) return null;
    const error = { name: "InngestInvokeTimeoutError", message: `Timed out waiting for invoked function run ${invoking.invoke_run_id} to complete.` };
    const timedOut = await completeStep(tx, run, job.stepId, { error }, info, now, { onlyIf: "invoking", lease: continuation });
    return timedOut.continuationJobId;
  });
}
