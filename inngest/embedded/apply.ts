import { sql } from "drizzle-orm";
import type { Tx } from "@/db";
import { inngestAttempts } from "@/db/schema/jobs";
import {
  engineContext,
  type AttemptDetails,
  type Continuation,
  type Job,
  type OpContext,
  type OutgoingOp,
  type RunnerContext,
  type RunSnapshot,
} from "./context";
import { newId } from "./ids";
import { applyOps } from "./ops";
import type { CompiledFunction, FunctionRegistry } from "./registry";
import { retryAfterMs, retryDelayMs } from "./retries";
import { ASYNC_COMMIT, enqueueDiscovery, enqueueJob, finishRun, isTerminal, lockRunAndReleaseJob, rows, serializeError, transaction } from "./state";

/** The serve handler's answer to one request: status, headers and the parsed JSON body. */
export type ServeResponse = { status: number; headers: Headers; body: unknown };

/** Rows of inngest_attempts for one response, written together at the end of its transaction. */
function attemptLog(runner: RunnerContext, job: Job, startedAt: number) {
  const entries: Array<typeof inngestAttempts.$inferInsert> = [];
  return {
    record(outcome: string, details: AttemptDetails = {}) {
      const durationMs = Date.now() - startedAt;
      entries.push({
        runId: job.runId,
        stepId: details.stepId ?? job.stepId,
        attempt: job.attempt,
        outcome,
        httpStatus: details.httpStatus ?? null,
        error: details.error ?? null,
        runnerId: runner.id,
        startedAt: new Date(runner.now().getTime() - durationMs),
        durationMs,
      });
    },
    async flush(tx: Tx) {
      if (entries.length) await tx.insert(inngestAttempts).values(entries);
    },
  };
}

/**
 * Applies a response in one transaction, only if this runner still holds the job's lease (else another runner
 * owns the request now and this result is dropped) and the run has not ended: 200 completes the run, a 206 is a
 * list of ops (one handler each, see ./ops), anything else is a function-level error, retried or final.
 */
export async function applyResponse(
  runner: RunnerContext,
  job: Job,
  fn: CompiledFunction,
  response: ServeResponse,
  startedAt: number,
  continuation: Continuation,
): Promise<void> {
  await transaction(runner.db, async (tx) => {
    continuation.jobId = null;
    const engine = engineContext(runner);
    const { run, released } = await lockRunAndReleaseJob(tx, job, engine.now);
    if (!released || !run || isTerminal(run.status)) return;
    const attempts = attemptLog(runner, job, startedAt);
    const ctx: OpContext = { tx, engine, runner, job, fn, run, headers: response.headers, continuation, attempt: attempts.record };
    const { status, headers, body } = response;

    if (status === 200) {
      attempts.record("function-completed", { httpStatus: status });
      await finishRun(tx, engine, run, { status: "completed", output: body });
    } else if (status === 206 && Array.isArray(body)) {
      await applyOps(ctx, body as OutgoingOp[]);
    } else {
      const error = serializeError(
        body && typeof body === "object" ? body : { name: "Error", message: `Serve handler answered ${status}: ${String(body).slice(0, 500)}` },
      );
      const nextAttempt = job.attempt + 1;
      if (headers.get("x-inngest-no-retry") === "true" || nextAttempt >= fn.maxAttempts) {
        attempts.record("function-failed", { httpStatus: status, error });
        await finishRun(tx, engine, run, { status: "failed", error });
      } else {
        attempts.record("function-error", { httpStatus: status, error });
        const delay = retryAfterMs(headers.get("retry-after"), engine.now) ?? retryDelayMs(nextAttempt, runner.random);
        await enqueueJob(tx, {
          runId: run.id,
          partition: run.partition,
          functionId: run.functionId,
          kind: "execute",
          stepId: job.stepId,
          attempt: nextAttempt,
          runAt: new Date(engine.now.getTime() + delay),
          concurrency: run.concurrency,
          now: engine.now,
        });
      }
    }
    await attempts.flush(tx);
  });
}

const FINISHED_EVENT = "inngest/function.finished";
const listening = new WeakMap<FunctionRegistry, boolean>();

/** Whether any function is triggered or cancelled by inngest/function.finished (then completion takes the general path). */
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

/**
 * The most common end of a request — the function returned — in one statement without a transaction, when nothing
 * but the record depends on it: no parent run waits in step.invoke, no function is triggered or cancelled by
 * inngest/function.finished and no step waits for it. The lease is released, the run completed, its pending jobs
 * dropped, its open steps closed, the attempt recorded and inngest/function.finished stored. Returns false when the
 * general path (applyResponse) must handle the response.
 */
export async function completeRunDirectly(
  runner: RunnerContext,
  job: Job,
  snapshot: RunSnapshot,
  response: ServeResponse,
  startedAt: number,
): Promise<boolean> {
  const returned = returnedOutput(response);
  if (!returned || snapshot.run.parentRunId || anyoneListensToFinished(runner.registry())) return false;
  const now = runner.now();
  const at = now.toISOString();
  const durationMs = Date.now() - startedAt;
  const result = JSON.stringify(returned.output ?? null);
  const output = returned.output === undefined || returned.output === null ? null : result;
  const eventId = newId();
  const [row] = await rows<{ active: number; released: number }>(
    runner.db,
    sql`
    with run as (
      select id from inngest_runs
      where id = ${job.runId} and status in ('queued', 'running') and ${ASYNC_COMMIT}
        and not exists (select 1 from inngest_steps w where w.status = 'waiting' and w.wait_event = ${FINISHED_EVENT})
      for update
    ), released as (
      delete from inngest_jobs where id = ${job.id} and lease_token = ${job.leaseToken} and exists (select 1 from run) returning id
    ), ended as (
      update inngest_runs set status = 'completed', output = ${output}::jsonb, ended_at = ${at}::timestamptz, updated_at = ${at}::timestamptz,
        started_at = coalesce(started_at, ${at}::timestamptz)
      where id = ${job.runId} and exists (select 1 from released)
      returning id, function_id, event
    ), dropped as (
      delete from inngest_jobs where run_id = ${job.runId} and lease_token is null and exists (select 1 from ended)
    ), closed as (
      update inngest_steps set status = 'cancelled', wake_at = null
      where run_id = ${job.runId} and status in ('planned', 'sleeping', 'waiting', 'invoking') and exists (select 1 from ended)
    ), attempt as (
      insert into inngest_attempts (run_id, step_id, attempt, outcome, http_status, runner_id, started_at, duration_ms)
      select ${job.runId}, ${job.stepId}, ${job.attempt}, 'function-completed', ${response.status}, ${runner.id},
        ${new Date(now.getTime() - durationMs).toISOString()}::timestamptz, ${durationMs}
      from ended
    ), finished as (
      insert into inngest_events (id, external_id, name, payload, received_at)
      select ${eventId}, null, ${FINISHED_EVENT},
        jsonb_build_object('id', ${eventId}::text, 'name', ${FINISHED_EVENT}::text, 'ts', ${now.getTime()}::bigint,
          'data', jsonb_build_object('function_id', e.function_id, 'run_id', e.id, 'event', e.event, 'result', ${result}::jsonb)),
        ${at}::timestamptz
      from ended e
    )
    select (select count(*) from run)::int as active, (select count(*) from released)::int as released`,
  );
  // Not active (ended, or someone waits for the event): the general path decides. Active but not released: the
  // lease was lost and another runner owns the request now; its result is dropped.
  return (row?.active ?? 0) > 0;
}

/**
 * Gives a request's work back without applying its response: the request yielded at a step boundary (the runner
 * stops, or drain's budget is spent) after its steps were checkpointed, so the run continues with a new discovery.
 */
export async function releaseForLater(runner: RunnerContext, job: Job): Promise<void> {
  await transaction(runner.db, async (tx) => {
    const now = runner.now();
    const { run, released } = await lockRunAndReleaseJob(tx, job, now);
    if (released && run && !isTerminal(run.status)) await enqueueDiscovery(tx, run, now);
  });
}

/** The job cannot run (its function is gone, or its step has a result already): drop it, fail or continue the run. */
export async function dropJob(runner: RunnerContext, job: Job, fn: CompiledFunction | undefined, stepDone: boolean): Promise<void> {
  await transaction(runner.db, async (tx) => {
    const engine = engineContext(runner);
    const { run, released } = await lockRunAndReleaseJob(tx, job, engine.now);
    if (!released || !run || isTerminal(run.status)) return;
    if (!fn) await finishRun(tx, engine, run, { status: "failed", error: { name: "Error", message: `Function "${job.functionId}" is not registered.` } });
    else if (stepDone) await enqueueDiscovery(tx, run, engine.now);
  });
}
