import { sql } from "drizzle-orm";
import type { Job, OutgoingOp, RunnerContext } from "./context";
import { engineContext } from "./context";
import { stepInfo } from "./ops/shared";
import { ASYNC_COMMIT, finishRun, lockRun, rows, transaction } from "./state";

/**
 * Checkpointing (the SDK's default in v4): in a discovery request the SDK runs a step, reports its result to the
 * Inngest API (`POST /v1/checkpoint/<runId>/async`, answered in-process by transport.ts) and goes on with the next
 * step in the same request. Inngest Cloud does the same, so the functions behave alike in both.
 *
 * A checkpoint is applied in one statement, only while the request's job is still leased to this runner and the
 * run has not ended: the steps are memoized, appended to the run's stack and their attempts recorded, and the lease
 * is renewed. "stale" (answered 409) makes the SDK stop the request at once.
 */
export type CheckpointOutcome = "applied" | "stale";

export async function applyCheckpoint(runner: RunnerContext, job: Job, ops: readonly OutgoingOp[]): Promise<CheckpointOutcome> {
  const now = runner.now();
  const unsupported = ops.find((op) => op.op !== "StepRun");
  if (unsupported) return failUnsupported(runner, job, unsupported);
  const at = now.toISOString();
  const steps = ops.map((op, order) => {
    const info = stepInfo(op, "StepRun");
    const durationMs = typeof op.timing?.b === "number" ? Math.max(0, Math.round(op.timing.b / 1e6)) : 0;
    return {
      order,
      hashed_id: op.id,
      step_id: info.stepId,
      display_name: info.displayName,
      data: op.data === undefined ? null : op.data,
      duration_ms: durationMs,
      started_at: new Date(now.getTime() - durationMs).toISOString(),
    };
  });
  const [row] = await rows<{ leased: number }>(
    runner.db,
    sql`
    with run as (
      select id from inngest_runs where id = ${job.runId} and status in ('queued', 'running') and ${ASYNC_COMMIT} for update
    ), lease as (
      update inngest_jobs set lease_expires_at = ${new Date(now.getTime() + runner.leaseMs).toISOString()}::timestamptz
      where id = ${job.id} and lease_token = ${job.leaseToken} and exists (select 1 from run)
      returning id
    ), input as (
      select * from jsonb_to_recordset(${JSON.stringify(steps)}::jsonb)
        as x("order" int, hashed_id text, step_id text, display_name text, data jsonb, duration_ms int, started_at timestamptz)
    ), step as (
      insert into inngest_steps (run_id, hashed_id, step_id, display_name, op, status, data, completed_at, created_at)
      select ${job.runId}, hashed_id, step_id, display_name, 'StepRun', 'completed', coalesce(data, 'null'::jsonb), ${at}::timestamptz, ${at}::timestamptz
      from input where exists (select 1 from lease)
      on conflict (run_id, hashed_id) do update
        set status = excluded.status, data = excluded.data, completed_at = excluded.completed_at, wake_at = null
        where inngest_steps.status not in ('completed', 'failed')
      returning hashed_id
    ), stacked as (
      update inngest_runs set
        stack = stack || (select coalesce(jsonb_agg(i.hashed_id order by i."order"), '[]'::jsonb) from input i where i.hashed_id in (select hashed_id from step)),
        status = 'running', started_at = coalesce(started_at, ${at}::timestamptz), updated_at = ${at}::timestamptz
      where id = ${job.runId} and exists (select 1 from lease)
    ), attempts as (
      insert into inngest_attempts (run_id, step_id, attempt, outcome, http_status, runner_id, started_at, duration_ms)
      select ${job.runId}, hashed_id, ${job.attempt}, 'step-completed', null, ${runner.id}, started_at, duration_ms
      from input where hashed_id in (select hashed_id from step)
    )
    select count(*)::int as leased from lease`,
  );
  return row && row.leased > 0 ? "applied" : "stale";
}

/** An op the runner does not implement reached a checkpoint (e.g. a deferred op): the run fails, naming it. */
async function failUnsupported(runner: RunnerContext, job: Job, op: OutgoingOp): Promise<CheckpointOutcome> {
  await transaction(runner.db, async (tx) => {
    const run = await lockRun(tx, job.runId);
    if (!run) return;
    const error = {
      name: "UnsupportedOperationError",
      message: `Function "${job.functionId}" used ${op.op} (step "${stepInfo(op).displayName}"), which the embedded Inngest runner does not support. Run against an Inngest server (INNGEST_DEV=1 or INNGEST_BASE_URL) to use it.`,
    };
    await finishRun(tx, engineContext(runner), run, { status: "failed", error });
  });
  return "stale";
}
