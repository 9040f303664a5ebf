import { sql, type SQL } from "drizzle-orm";
import { newId } from "./ids";
import type { Db, Tx } from "@/db";
import { inngestRuns, type JobKind, type RunStatus, type SerializedError } from "@/db/schema/jobs";
import { evaluateValue } from "./expressions";
import type { CompiledFunction, FunctionRegistry } from "./registry";

/**
 * Durable run state in Postgres: the primitives every part of the runner builds on. Every function here runs inside
 * the caller's transaction; callers lock the run row first (`lockRun`) so that rows are always locked
 * run → step → job.
 */

export type EngineContext = {
  now: Date;
  /** Runner group of runs created here (see db/schema/jobs.ts). */
  partition: string;
  /** Functions that events may trigger and whose cancelOn applies. */
  registry: FunctionRegistry;
};

export type RunRow = typeof inngestRuns.$inferSelect;
export type RunRef = Pick<RunRow, "id" | "partition" | "functionId" | "concurrency">;

export const DISCOVERY_STEP = "step";
const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

export const TERMINAL_STATUSES: RunStatus[] = ["completed", "failed", "cancelled"];

export function isTerminal(status: RunStatus): boolean {
  return TERMINAL_STATUSES.includes(status);
}

export function serializeError(error: unknown): SerializedError {
  if (error instanceof Error) return { name: error.name, message: error.message, stack: error.stack };
  if (error && typeof error === "object" && "message" in error) {
    const record = error as Record<string, unknown>;
    return { ...record, name: String(record.name ?? "Error"), message: String(record.message) };
  }
  return { name: "Error", message: typeof error === "string" ? error : JSON.stringify(error) };
}

/**
 * The runner's own bookkeeping — leases, memoized step results, run state — commits asynchronously
 * (`synchronous_commit = off` for that transaction only): it does not wait for the WAL flush, which costs ~5 ms
 * on this machine and was most of a step's overhead. A Postgres crash (not an app crash: kill -9 of the app loses
 * nothing committed) may forget the last ~0.6 s of bookkeeping; those requests then run again, which the
 * at-least-once contract allows anyway. Event intake (`inngest.send`, `step.sendEvent`) commits synchronously:
 * an accepted event is never lost.
 *
 * As a condition: evaluated once per statement (an init plan), put it in the first WHERE of a runner statement.
 */
export const ASYNC_COMMIT = sql`(select set_config('synchronous_commit', 'off', true)) is not null`;

/** Makes the current transaction commit asynchronously (see ASYNC_COMMIT). */
export async function commitAsynchronously(tx: Tx): Promise<void> {
  await tx.execute(sql`set local synchronous_commit = off`);
}

/** Postgres error codes worth retrying the whole transaction for. */
function isRetryableTransactionError(error: unknown): boolean {
  const code = (error as { code?: string })?.code ?? (error as { cause?: { code?: string } })?.cause?.code;
  return code === "40P01" || code === "40001";
}

/** Runs `work` again (up to 5 times, after a short random pause) when Postgres aborted it for a deadlock or a serialization failure. */
export async function retryOnConflict<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (attempt >= 5 || !isRetryableTransactionError(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 20 * (attempt + 1)));
    }
  }
}

/** One transaction, retried on deadlock / serialization failure. */
export async function transaction<T>(db: Db, work: (tx: Tx) => Promise<T>): Promise<T> {
  return retryOnConflict(() => db.transaction(work));
}

/** A Postgres text[] literal. */
export function textArray(values: readonly string[]): string {
  return `{${values.map((value) => `"${value.replace(/(["\\])/g, "\\$1")}"`).join(",")}}`;
}

/** Rows of a raw `tx.execute` (postgres.js returns an array-like result). */
export async function rows<T>(db: Db | Tx, query: ReturnType<typeof sql>): Promise<T[]> {
  return (await db.execute(query)) as unknown as T[];
}

const date = (value: unknown) => (value === null || value === undefined ? null : new Date(value as string));

/** A raw `inngest_runs` row (snake_case, as `select r.*` returns it) as drizzle's RunRow. */
export function toRunRow(row: Record<string, unknown>): RunRow {
  return {
    id: row.id as string,
    partition: row.partition as string,
    functionId: row.function_id as string,
    status: row.status as RunRow["status"],
    eventId: (row.event_id as string | null) ?? null,
    event: row.event as Record<string, unknown>,
    events: (row.events as RunRow["events"]) ?? null,
    stack: row.stack as string[],
    output: row.output ?? null,
    error: (row.error as RunRow["error"]) ?? null,
    concurrency: row.concurrency as RunRow["concurrency"],
    idempotencyKey: (row.idempotency_key as string | null) ?? null,
    parentRunId: (row.parent_run_id as string | null) ?? null,
    parentStepId: (row.parent_step_id as string | null) ?? null,
    cancelledByEventId: (row.cancelled_by_event_id as string | null) ?? null,
    createdAt: date(row.created_at)!,
    startedAt: date(row.started_at),
    endedAt: date(row.ended_at),
    updatedAt: date(row.updated_at)!,
  };
}

export async function lockRun(tx: Tx, runId: string): Promise<RunRow | undefined> {
  const [row] = await rows<Record<string, unknown>>(tx, sql`select * from inngest_runs where id = ${runId} for update`);
  return row ? toRunRow(row) : undefined;
}

/** Locks several runs (in id order, so two lockers never deadlock) and returns those still active. */
export async function lockActiveRuns(tx: Tx, runIds: readonly string[]): Promise<Map<string, RunRow>> {
  if (runIds.length === 0) return new Map();
  const locked = await rows<Record<string, unknown>>(
    tx,
    sql`select * from inngest_runs where id = any(${textArray([...new Set(runIds)])}::text[]) order by id for update`,
  );
  return new Map(locked.map(toRunRow).filter((run) => !isTerminal(run.status)).map((run) => [run.id, run]));
}

/**
 * Locks the run and deletes the job if its lease is still the caller's, in one statement, and marks a queued run
 * running. It opens every transaction that applies a request's outcome, and makes it commit asynchronously. `released` is false when another runner took the job over (its lease expired or was released): the
 * caller must then drop its result.
 */
export async function lockRunAndReleaseJob(
  tx: Tx,
  job: { id: number; runId: string; leaseToken: string },
  now: Date,
): Promise<{ run: RunRow | undefined; released: boolean }> {
  const [row] = await rows<Record<string, unknown>>(
    tx,
    sql`
    with released as (delete from inngest_jobs where id = ${job.id} and lease_token = ${job.leaseToken} and ${ASYNC_COMMIT} returning id)
    select r.*, (select count(*) from released)::int as released_count
    from inngest_runs r where r.id = ${job.runId}
    for update of r`,
  );
  // Runs are never deleted while they have jobs, so a job always finds its run.
  if (!row) return { run: undefined, released: false };
  const run = toRunRow(row);
  const released = Number(row.released_count) > 0;
  if (released && run.status === "queued") {
    // A separate statement: a row locked by a statement cannot also be updated by it.
    await tx.execute(sql`update inngest_runs set status = 'running', started_at = ${now.toISOString()}::timestamptz, updated_at = ${now.toISOString()}::timestamptz where id = ${run.id}`);
    Object.assign(run, { status: "running", startedAt: now, updatedAt: now });
  }
  return { run, released };
}

export type JobInput = {
  runId: string;
  partition: string;
  functionId: string;
  kind: JobKind;
  stepId: string;
  attempt?: number;
  runAt: Date;
  concurrency?: Array<{ key: string; limit: number }>;
  now: Date;
};

/** Adds a job; a pending job for the same run/kind/step is merged (later time, higher attempt wins). */
export async function enqueueJob(tx: Tx, job: JobInput): Promise<void> {
  const concurrency = job.kind === "execute" ? (job.concurrency ?? []) : [];
  await tx.execute(sql`
    insert into inngest_jobs (run_id, partition, function_id, kind, step_id, attempt, run_at, concurrency_keys, concurrency_limits, created_at)
    values (${job.runId}, ${job.partition}, ${job.functionId}, ${job.kind}, ${job.stepId}, ${job.attempt ?? 0}, ${job.runAt.toISOString()}::timestamptz,
      ${textArray(concurrency.map((c) => c.key))}::text[], ${`{${concurrency.map((c) => c.limit).join(",")}}`}::int[], ${job.now.toISOString()}::timestamptz)
    on conflict (run_id, kind, step_id) where lease_token is null
    do update set attempt = greatest(inngest_jobs.attempt, excluded.attempt), run_at = greatest(inngest_jobs.run_at, excluded.run_at)`);
}

export async function enqueueDiscovery(tx: Tx, run: RunRef, now: Date): Promise<void> {
  await enqueueJob(tx, {
    runId: run.id,
    partition: run.partition,
    functionId: run.functionId,
    kind: "execute",
    stepId: DISCOVERY_STEP,
    runAt: now,
    concurrency: run.concurrency,
    now,
  });
}

/** A run to create: its function, trigger event(s) and where it comes from. */
export type RunSpec = {
  fn: CompiledFunction;
  event: Record<string, unknown>;
  /** batchEvents: every event of the batch (`event` is the first). */
  events?: Array<Record<string, unknown>>;
  eventId?: string | null;
  runId?: string;
  /** Defaults to the context's partition. */
  partition?: string;
  parentRunId?: string;
  parentStepId?: string;
  /** Invocations are never dropped by the target's idempotency key. */
  skipIdempotency?: boolean;
};

/**
 * A run's concurrency key. A partition is one environment (docs/background-jobs.md): scopes `fn` and `env` count the
 * runs of their partition only, as Inngest counts per environment; `account` counts across partitions. Unscoped, the
 * test files' partitions on the shared test database took each other's slots (a dispatcher of one file found the
 * function's limit full with another file's runs, and its drain ended with the call undialled).
 */
function concurrencyKey(partition: string, functionId: string, option: CompiledFunction["concurrency"][number], event: unknown): string {
  const scope = option.scope === "account" ? "account" : `${partition}/${option.scope === "fn" ? functionId : "env"}`;
  return `${scope}:${option.key ? evaluateValue(option.key, { event }) : ""}`;
}

/**
 * Creates queued runs with their first discovery job, in one statement whatever their number: idempotency keys are
 * claimed (a key used in the last 24 h drops its run, as does a second use within `specs`), runs and jobs inserted,
 * and listening runners notified. Returns each spec's run id, or null when its idempotency key dropped it.
 */
export async function createRuns(tx: Tx, ctx: EngineContext, specs: readonly RunSpec[]): Promise<Array<string | null>> {
  const result: Array<string | null> = specs.map(() => null);
  const keysInBatch = new Set<string>();
  const input: Array<Record<string, unknown>> = [];
  specs.forEach((spec, index) => {
    const { fn, event } = spec;
    const partition = spec.partition ?? ctx.partition;
    let idempotencyKey: string | null = null;
    if (fn.idempotency && !spec.skipIdempotency) {
      idempotencyKey = evaluateValue(fn.idempotency, { event });
      const composite = `${partition}\u0000${fn.id}\u0000${idempotencyKey}`;
      if (keysInBatch.has(composite)) return;
      keysInBatch.add(composite);
    }
    const concurrency = fn.concurrency.map((option) => ({ key: concurrencyKey(partition, fn.id, option, event), limit: option.limit }));
    input.push({
      index,
      id: spec.runId ?? newId(),
      partition,
      function_id: fn.id,
      event,
      events: spec.events ?? null,
      event_id: spec.eventId ?? null,
      concurrency,
      keys: concurrency.map((c) => c.key),
      limits: concurrency.map((c) => c.limit),
      idempotency_key: idempotencyKey,
      parent_run_id: spec.parentRunId ?? null,
      parent_step_id: spec.parentStepId ?? null,
    });
  });
  if (input.length === 0) return result;
  const now = ctx.now.toISOString();
  const expiresAt = new Date(ctx.now.getTime() + IDEMPOTENCY_TTL_MS).toISOString();
  const created = await rows<{ index: number; id: string }>(
    tx,
    sql`
    with input as (
      select * from jsonb_to_recordset(${JSON.stringify(input)}::jsonb) as x(
        index int, id text, partition text, function_id text, event jsonb, events jsonb, event_id text, concurrency jsonb,
        keys text[], limits int[], idempotency_key text, parent_run_id text, parent_step_id text)
    ), claimed as (
      insert into inngest_idempotency_keys (function_id, key, run_id, expires_at)
      select function_id, partition || ' ' || idempotency_key, id, ${expiresAt}::timestamptz from input where idempotency_key is not null
      on conflict (function_id, key) do update set run_id = excluded.run_id, expires_at = excluded.expires_at
        where inngest_idempotency_keys.expires_at <= ${now}::timestamptz
      returning run_id
    ), accepted as (
      select * from input where idempotency_key is null or id in (select run_id from claimed)
    ), runs as (
      insert into inngest_runs (id, partition, function_id, status, event_id, event, events, concurrency, idempotency_key,
        parent_run_id, parent_step_id, created_at, updated_at)
      select id, partition, function_id, 'queued', event_id, event, events, concurrency, idempotency_key,
        parent_run_id, parent_step_id, ${now}::timestamptz, ${now}::timestamptz
      from accepted
      returning id
    ), jobs as (
      insert into inngest_jobs (run_id, partition, function_id, kind, step_id, attempt, run_at, concurrency_keys, concurrency_limits, created_at)
      select id, partition, function_id, 'execute', ${DISCOVERY_STEP}, 0, ${now}::timestamptz, keys, limits, ${now}::timestamptz
      from accepted
      returning partition
    ), notified as (
      select pg_notify(${WAKE_CHANNEL}, partition) from (select distinct partition from jobs) p
    )
    select a.index, a.id from accepted a where (select count(*) from notified) >= 0 and a.id in (select id from runs)`,
  );
  for (const row of created) result[row.index] = row.id;
  return result;
}

/** The channel runners LISTEN on; the payload is the partition that has new work. */
export const WAKE_CHANNEL = "inngest_embedded_work";

/** Creates one run; null when the function's idempotency key drops it. */
export async function createRun(tx: Tx, ctx: EngineContext, spec: RunSpec): Promise<string | null> {
  const [runId] = await createRuns(tx, ctx, [spec]);
  return runId ?? null;
}

export type StepResult = { data: unknown } | { error: SerializedError };

export type StepInfo = { stepId: string; displayName: string; op: string };

/** A lease to put on the follow-up discovery job, so the runner that applied a result can run it next without a claim. */
export type ContinuationLease = { token: string; owner: string; expiresAt: Date };

export type CompleteStepOptions = {
  /** Create the follow-up discovery job leased to this runner; its id is returned. */
  lease?: ContinuationLease;
  /** Only complete the step if it is in this state (a waiter resumed by an event, a timer that fired). */
  onlyIf?: "waiting" | "sleeping" | "invoking" | Array<"waiting" | "sleeping" | "invoking">;
  /** Pending jobs of the step that its result makes obsolete: its timer (waits, invokes), or its retries. */
  dropPending?: "timer" | "execute";
  /** False when the run's next discovery request is queued already (another result of the same response leased it). */
  queueDiscovery?: boolean;
};

/**
 * Memoizes a step's result (data, or a final error), appends it to the run's stack, queues the next discovery
 * request and drops the step's obsolete pending jobs, in one statement. Returns completed=false when the step
 * already had a result (a duplicate report is ignored: a completed step never changes) or was not in `onlyIf`.
 */
export async function completeStep(
  tx: Tx,
  run: RunRef,
  hashedId: string,
  result: StepResult,
  info: StepInfo,
  now: Date,
  options: CompleteStepOptions = {},
): Promise<{ completed: boolean; continuationJobId: number | null }> {
  const { lease, onlyIf, dropPending, queueDiscovery = true } = options;
  const failed = "error" in result;
  const at = now.toISOString();
  const data = failed ? null : JSON.stringify(result.data ?? null);
  const error = failed ? JSON.stringify(result.error) : null;
  const status = failed ? "failed" : "completed";
  // A waiting / sleeping / invoking step exists already: it is updated only while still in that state. Otherwise the
  // step is inserted, or updated unless it already has its result.
  const stepWrite = onlyIf
    ? sql`
      update inngest_steps set status = ${status}, data = ${data}::jsonb, error = ${error}::jsonb, completed_at = ${at}::timestamptz, wake_at = null
      where run_id = ${run.id} and hashed_id = ${hashedId} and status = any(${textArray([onlyIf].flat())}::text[])
      returning hashed_id`
    : sql`
      insert into inngest_steps (run_id, hashed_id, step_id, display_name, op, status, data, error, completed_at, wake_at, created_at)
      values (${run.id}, ${hashedId}, ${info.stepId}, ${info.displayName}, ${info.op}, ${status},
        ${data}::jsonb, ${error}::jsonb, ${at}::timestamptz, null, ${at}::timestamptz)
      on conflict (run_id, hashed_id) do update
        set status = excluded.status, data = excluded.data, error = excluded.error, completed_at = excluded.completed_at, wake_at = null
        where inngest_steps.status not in ('completed', 'failed')
      returning hashed_id`;
  const jobInsert = queueDiscovery ? nextDiscovery(run, at, lease) : sql`select null as id, null as lease_token from step`;
  const drop = dropPending
    ? sql`, dropped as (
        delete from inngest_jobs where run_id = ${run.id} and kind = ${dropPending} and step_id = ${hashedId} and lease_token is null
          and exists (select 1 from step)
      )`
    : sql``;
  const [row] = await rows<{ id: string | number; lease_token: string | null }>(
    tx,
    sql`
    with step as (${stepWrite}
    ), stacked as (
      update inngest_runs set stack = stack || jsonb_build_array(${hashedId}::text), updated_at = ${at}::timestamptz
      where id = ${run.id} and exists (select 1 from step)
      returning id
    )${drop}
    ${jobInsert}`,
  );
  if (!row) return { completed: false, continuationJobId: null };
  return { completed: true, continuationJobId: lease && row.lease_token === lease.token ? Number(row.id) : null };
}

/** The statement (closing completeStep's) that queues the run's next discovery request once `step` was written. */
function nextDiscovery(run: RunRef, at: string, lease: ContinuationLease | undefined): SQL {
  const keys = textArray(run.concurrency.map((c) => c.key));
  const limits = `{${run.concurrency.map((c) => c.limit).join(",")}}`;
  if (lease) {
    return sql`insert into inngest_jobs (run_id, partition, function_id, kind, step_id, attempt, run_at, concurrency_keys, concurrency_limits, lease_token, lease_owner, lease_expires_at, created_at)
      select ${run.id}, ${run.partition}, ${run.functionId}, 'execute', ${DISCOVERY_STEP}, 0, ${at}::timestamptz, ${keys}::text[], ${limits}::int[],
        ${lease.token}, ${lease.owner}, ${lease.expiresAt.toISOString()}::timestamptz, ${at}::timestamptz
      where exists (select 1 from step)
      returning id, lease_token`;
  }
  return sql`insert into inngest_jobs (run_id, partition, function_id, kind, step_id, attempt, run_at, concurrency_keys, concurrency_limits, created_at)
    select ${run.id}, ${run.partition}, ${run.functionId}, 'execute', ${DISCOVERY_STEP}, 0, ${at}::timestamptz, ${keys}::text[], ${limits}::int[], ${at}::timestamptz
    where exists (select 1 from step)
    on conflict (run_id, kind, step_id) where lease_token is null
    do update set attempt = greatest(inngest_jobs.attempt, excluded.attempt), run_at = greatest(inngest_jobs.run_at, excluded.run_at)
    returning id, lease_token`;
}
