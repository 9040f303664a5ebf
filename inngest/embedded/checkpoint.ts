import { sql } from "drizzle-orm";
import { recordRunnerSteps } from "@/server/observability/metrics";
import type { Job, OutgoingOp, RunnerContext } from "./context";
import { engineContext } from "./context";
import { GroupCommit } from "./group-commit";
import { stepInfo } from "./ops/shared";
import { finishRun } from "./intake";
import { ASYNC_COMMIT, lockRun, rows, transaction } from "./state";

/**
 * Checkpointing (the SDK's default in v4): in a discovery request the SDK runs a step, reports its result to the
 * Inngest API (`POST /v1/checkpoint/<runId>/async`, answered in-process by transport.ts) and goes on with the next
 * step in the same request. Inngest Cloud does the same, so the functions behave alike in both.
 *
 * A checkpoint is applied only while the request's job is still leased to this runner and the run has not ended:
 * the steps are memoized, appended to the run's stack and their attempts recorded.
 * "stale" (answered 409) makes the SDK stop the request at once.
 */
export type CheckpointOutcome = "applied" | "stale";

type Checkpoint = { job: Job; ops: readonly OutgoingOp[] };

/** Writes checkpoints with group commit (see group-commit.ts): one statement for all that arrive meanwhile. */
export class CheckpointWriter {
  private readonly group: GroupCommit<Checkpoint, CheckpointOutcome>;

  constructor(private readonly runner: RunnerContext) {
    this.group = new GroupCommit(async (checkpoints) => {
      const applied = await applyCheckpoints(runner, checkpoints);
      for (const { job, ops } of checkpoints) if (applied.has(job.id)) recordRunnerSteps(job.functionId, "completed", ops);
      return checkpoints.map(({ job }) => (applied.has(job.id) ? "applied" : "stale"));
    });
  }

  write(job: Job, ops: readonly OutgoingOp[]): Promise<CheckpointOutcome> {
    const unsupported = ops.find((op) => op.op !== "StepRun");
    if (unsupported) return failUnsupported(this.runner, job, unsupported);
    return this.group.submit({ job, ops });
  }
}

/**
 * One statement for the checkpoints of several requests. For each job still leased to this runner whose run has
 * not ended: memoize the steps, append them to the run's stack and record their attempts. Returns the ids of the
 * jobs whose checkpoints were applied.
 */
async function applyCheckpoints(runner: RunnerContext, batch: readonly Checkpoint[]): Promise<Set<number>> {
  const now = runner.now();
  const at = now.toISOString();
  const steps = batch.flatMap(({ job, ops }) =>
    ops.map((op, order) => {
      const info = stepInfo(op, "StepRun");
      const durationMs = typeof op.timing?.b === "number" ? Math.max(0, Math.round(op.timing.b / 1e6)) : 0;
      return {
        job_id: job.id,
        run_id: job.runId,
        attempt: job.attempt,
        order,
        hashed_id: op.id,
        step_id: info.stepId,
        display_name: info.displayName,
        data: op.data === undefined ? null : op.data,
        duration_ms: durationMs,
        started_at: new Date(now.getTime() - durationMs).toISOString(),
      };
    }),
  );
  const jobs = batch.map(({ job }) => ({ job_id: job.id, lease_token: job.leaseToken, run_id: job.runId }));
  const applied = await rows<{ id: string | number }>(
    runner.db,
    sql`
    with jobs as (
      select * from jsonb_to_recordset(${JSON.stringify(jobs)}::jsonb) as x(job_id bigint, lease_token text, run_id text)
    ), lease as (
      -- A key-share lock, not an update: it keeps a claim or a release off the job until this statement commits,
      -- without writing a new row version per step (the heartbeat renews the lease).
      select j.id, j.run_id from inngest_jobs j join jobs x on j.id = x.job_id and j.lease_token = x.lease_token
      where ${ASYNC_COMMIT}
      order by j.id
      for key share of j
    ), input as (
      select * from jsonb_to_recordset(${JSON.stringify(steps)}::jsonb) as x(job_id bigint, run_id text, attempt int, "order" int,
        hashed_id text, step_id text, display_name text, data jsonb, duration_ms int, started_at timestamptz)
      where job_id in (select id from lease)
    ), stacked as (
      update inngest_runs r set
        stack = r.stack || coalesce((
          select jsonb_agg(i.hashed_id order by i."order") from input i
          where i.run_id = r.id and not r.stack @> jsonb_build_array(i.hashed_id)
        ), '[]'::jsonb),
        status = 'running', started_at = coalesce(r.started_at, ${at}::timestamptz), updated_at = ${at}::timestamptz
      where r.id in (select run_id from lease) and r.status in ('queued', 'running')
      returning r.id
    ), step as (
      insert into inngest_steps (run_id, hashed_id, step_id, display_name, op, status, data, completed_at, created_at)
      select run_id, hashed_id, step_id, display_name, 'StepRun', 'completed', coalesce(data, 'null'::jsonb), ${at}::timestamptz, ${at}::timestamptz
      from input where run_id in (select id from stacked)
      on conflict (run_id, hashed_id) do update
        set status = excluded.status, data = excluded.data, completed_at = excluded.completed_at, wake_at = null
        where inngest_steps.status not in ('completed', 'failed')
      returning run_id, hashed_id
    ), attempts as (
      insert into inngest_attempts (run_id, step_id, attempt, outcome, http_status, runner_id, started_at, duration_ms)
      select i.run_id, i.hashed_id, i.attempt, 'step-completed', null, ${runner.id}, i.started_at, i.duration_ms
      from input i join step s on s.run_id = i.run_id and s.hashed_id = i.hashed_id
    )
    select l.id from lease l where l.run_id in (select id from stacked)`,
  );
  return new Set(applied.map((row) => Number(row.id)));
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
