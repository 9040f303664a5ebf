import { sql } from "drizzle-orm";
import type { Job, RunnerContext } from "./context";
import { completeStep, isTerminal, lockRunAndReleaseJob, rows, transaction } from "./state";

/** A timer job fired: a sleep ended (the step completes), or a wait / invoke timed out (null / an error). */
export async function fireTimer(runner: RunnerContext, job: Job): Promise<void> {
  await transaction(runner.db, async (tx) => {
    const now = runner.now();
    const { run, released } = await lockRunAndReleaseJob(tx, job, now);
    if (!released || !run || isTerminal(run.status)) return;
    const info = { stepId: job.stepId, displayName: job.stepId, op: "Sleep" };
    const { completed } = await completeStep(tx, run, job.stepId, { data: null }, info, now, { onlyIf: ["sleeping", "waiting"] });
    if (completed) return;
    const [invoking] = await rows<{ invoke_run_id: string | null }>(
      tx,
      sql`select invoke_run_id from inngest_steps where run_id = ${run.id} and hashed_id = ${job.stepId} and status = 'invoking' for update`,
    );
    if (!invoking) return;
    const error = { name: "InngestInvokeTimeoutError", message: `Timed out waiting for invoked function run ${invoking.invoke_run_id} to complete.` };
    await completeStep(tx, run, job.stepId, { error }, info, now, { onlyIf: "invoking" });
  });
}
