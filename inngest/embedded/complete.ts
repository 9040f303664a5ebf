import { sql } from "drizzle-orm";
import type { ServeResponse } from "./apply";
import type { Job, OutgoingOp, RunnerContext, RunSnapshot } from "./context";
import { GroupCommit } from "./group-commit";
import { newId } from "./ids";
import type { FunctionRegistry } from "./registry";
import { ASYNC_COMMIT, rows, textArray } from "./state";

/**
 * The most common end of a request — the function returned — without a transaction, when nothing but the record
 * depends on it: no parent run waits in step.invoke, no function is triggered or cancelled by
 * inngest/function.finished and no step waits for it. One statement (shared by the completions that arrive while
 * one is in flight, see group-commit.ts) releases the lease, completes the run, drops its pending jobs, closes its
 * open steps, records the attempt and stores inngest/function.finished. Anything else goes through applyResponse.
 */

const FINISHED_EVENT = "inngest/function.finished";
const listening = new WeakMap<FunctionRegistry, boolean>();

/** Whether any function is triggered or cancelled by inngest/function.finished. */
function anyoneListensToFinished(registry: FunctionRegistry): boolean {
  let listens = listening.get(registry);
  if (listens === undefined) {
    listens = [...registry.values()].some(
      (fn) => fn.eventTriggers.some((trigger) => trigger.event === FINISHED_EVENT) || fn.cancel.some((cancel) => cancel.event === FINISHED_EVENT),
    );
    listening.set(registry, listens);
  }
  return listens;
}

/** The function's output when the response says it returned (200, or a 206 that is just RunComplete); else undefined. */
function returnedOutput(response: ServeResponse): { output: unknown } | undefined {
  if (response.status === 200) return { output: response.body };
  if (response.status !== 206 || !Array.isArray(response.body) || response.body.length !== 1) return undefined;
  const [op] = response.body as OutgoingOp[];
  return op?.op === "RunComplete" ? { output: op.data ?? null } : undefined;
}

type Completion = { job: Job; output: unknown; httpStatus: number; durationMs: number };

/** "done": completed, or dropped because the lease was lost; "general": applyResponse must handle it. */
type CompletionOutcome = "done" | "general";

export class CompletionWriter {
  private readonly group: GroupCommit<Completion, CompletionOutcome>;

  constructor(private readonly runner: RunnerContext) {
    this.group = new GroupCommit((completions) => completeRuns(runner, completions));
  }

  /** Completes the run if the response says the function returned and nothing depends on the completion; false otherwise. */
  async tryComplete(job: Job, snapshot: RunSnapshot, response: ServeResponse, startedAt: number): Promise<boolean> {
    const returned = returnedOutput(response);
    if (!returned || snapshot.run.parentRunId || anyoneListensToFinished(this.runner.registry())) return false;
    const outcome = await this.group.submit({ job, output: returned.output, httpStatus: response.status, durationMs: Date.now() - startedAt });
    return outcome === "done";
  }
}

async function completeRuns(runner: RunnerContext, completions: readonly Completion[]): Promise<CompletionOutcome[]> {
  const now = runner.now();
  const at = now.toISOString();
  const input = completions.map(({ job, output, httpStatus, durationMs }) => ({
    job_id: job.id,
    lease_token: job.leaseToken,
    run_id: job.runId,
    step_id: job.stepId,
    attempt: job.attempt,
    output: output === undefined || output === null ? null : output,
    result: output ?? null,
    event_id: newId(),
    http_status: httpStatus,
    duration_ms: durationMs,
    started_at: new Date(now.getTime() - durationMs).toISOString(),
  }));
  const [row] = await rows<{ active: string[] | null; released: string[] | null }>(
    runner.db,
    sql`
    with input as (
      select * from jsonb_to_recordset(${JSON.stringify(input)}::jsonb) as x(job_id bigint, lease_token text, run_id text, step_id text,
        attempt int, output jsonb, result jsonb, event_id text, http_status int, duration_ms int, started_at timestamptz)
    ), run as (
      select id from inngest_runs
      where id = any(${textArray(completions.map(({ job }) => job.runId))}::text[]) and status in ('queued', 'running') and ${ASYNC_COMMIT}
        and not exists (select 1 from inngest_steps w where w.status = 'waiting' and w.wait_event = ${FINISHED_EVENT})
      order by id
      for update
    ), released as (
      delete from inngest_jobs j using input i
      where j.id = i.job_id and j.lease_token = i.lease_token and i.run_id in (select id from run)
      returning i.run_id
    ), ended as (
      update inngest_runs r set status = 'completed', output = i.output, ended_at = ${at}::timestamptz, updated_at = ${at}::timestamptz,
        started_at = coalesce(r.started_at, ${at}::timestamptz)
      from input i
      where r.id = i.run_id and i.run_id in (select run_id from released)
      returning r.id, r.function_id, r.event
    ), dropped as (
      delete from inngest_jobs where run_id in (select id from ended) and lease_token is null
    ), closed as (
      update inngest_steps set status = 'cancelled', wake_at = null
      where run_id in (select id from ended) and status in ('planned', 'sleeping', 'waiting', 'invoking')
    ), attempt as (
      insert into inngest_attempts (run_id, step_id, attempt, outcome, http_status, runner_id, started_at, duration_ms)
      select i.run_id, i.step_id, i.attempt, 'function-completed', i.http_status, ${runner.id}, i.started_at, i.duration_ms
      from input i join ended e on e.id = i.run_id
    ), finished as (
      insert into inngest_events (id, external_id, name, payload, received_at)
      select i.event_id, null, ${FINISHED_EVENT},
        jsonb_build_object('id', i.event_id, 'name', ${FINISHED_EVENT}::text, 'ts', ${now.getTime()}::bigint,
          'data', jsonb_build_object('function_id', e.function_id, 'run_id', e.id, 'event', e.event, 'result', i.result)),
        ${at}::timestamptz
      from input i join ended e on e.id = i.run_id
    )
    select (select jsonb_agg(id) from run) as active, (select jsonb_agg(run_id) from released) as released`,
  );
  const active = new Set(row?.active ?? []);
  // Not active (ended, or someone waits for the event): the general path decides. Active but not released: the
  // lease was lost and another runner owns the request now; its result is dropped.
  return completions.map(({ job }) => (active.has(job.runId) ? "done" : "general"));
}
