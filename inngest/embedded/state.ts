import { and, eq, gt, gte, inArray, lte, sql, type SQL } from "drizzle-orm";
import { ulid } from "ulid";
import type { Db, Tx } from "@/db";
import {
  inngestEvents,
  inngestIdempotencyKeys,
  inngestJobs,
  inngestRuns,
  inngestSteps,
  type JobKind,
  type RunStatus,
  type SerializedError,
} from "@/db/schema/jobs";
import { bindConditions, evaluateConditions, evaluateValue, type Condition, type Operand } from "./expressions";
import type { CompiledFunction, FunctionRegistry } from "./registry";

/**
 * Durable run state in Postgres. Every function here runs inside the caller's transaction; the callers
 * (runner.ts, transport.ts) lock the run row first (`lockRun`) so that rows are always locked run → step → job.
 */

export type EngineContext = {
  now: Date;
  /** Runner group of runs created here (see db/schema/jobs.ts). */
  partition: string;
  /** Functions that events may trigger and whose cancelOn applies. */
  registry: FunctionRegistry;
};

export type EventPayload = {
  id?: string;
  name: string;
  data?: Record<string, unknown>;
  ts?: number;
  user?: unknown;
  v?: string;
  [key: string]: unknown;
};

export type RunRow = typeof inngestRuns.$inferSelect;

export const DISCOVERY_STEP = "step";
const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
const EVENT_DEDUPE_MS = 24 * 60 * 60 * 1000;
const MAX_INTERNAL_EVENT_DEPTH = 5;

export const TERMINAL_STATUSES: RunStatus[] = ["completed", "failed", "cancelled"];
const ACTIVE_STATUSES: RunStatus[] = ["queued", "running"];

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

/** Postgres error codes worth retrying the whole transaction for. */
function isRetryableTransactionError(error: unknown): boolean {
  const code = (error as { code?: string })?.code ?? (error as { cause?: { code?: string } })?.cause?.code;
  return code === "40P01" || code === "40001";
}

/** One transaction, retried on deadlock / serialization failure. */
export async function transaction<T>(db: Db, work: (tx: Tx) => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await db.transaction(work);
    } catch (error) {
      if (attempt >= 5 || !isRetryableTransactionError(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 20 * (attempt + 1)));
    }
  }
}

export async function lockRun(tx: Tx, runId: string): Promise<RunRow | undefined> {
  const [run] = await tx.select().from(inngestRuns).where(eq(inngestRuns.id, runId)).for("update");
  return run;
}

/**
 * Locks the run and deletes the job if its lease is still the caller's, in one statement. `released` is false when
 * another runner took the job over (its lease expired): the caller must then drop its result.
 */
export async function lockRunAndReleaseJob(
  tx: Tx,
  job: { id: number; runId: string; leaseToken: string },
): Promise<{ run: RunRow | undefined; released: boolean }> {
  const rows = (await tx.execute(sql`
    with released as (delete from inngest_jobs where id = ${job.id} and lease_token = ${job.leaseToken} returning id)
    select r.*, (select count(*) from released)::int as released_count
    from inngest_runs r where r.id = ${job.runId}
    for update of r`)) as unknown as Array<Record<string, unknown>>;
  const row = rows[0];
  // Runs are never deleted, so a job always finds its run.
  if (!row) return { run: undefined, released: false };
  const released = Number(row.released_count) > 0;
  const date = (value: unknown) => (value === null || value === undefined ? null : new Date(value as string));
  const run: RunRow = {
    id: row.id as string,
    partition: row.partition as string,
    functionId: row.function_id as string,
    status: row.status as RunRow["status"],
    eventId: (row.event_id as string | null) ?? null,
    event: row.event as Record<string, unknown>,
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
  await tx
    .insert(inngestJobs)
    .values({
      runId: job.runId,
      partition: job.partition,
      functionId: job.functionId,
      kind: job.kind,
      stepId: job.stepId,
      attempt: job.attempt ?? 0,
      runAt: job.runAt,
      concurrencyKeys: concurrency.map((c) => c.key),
      concurrencyLimits: concurrency.map((c) => c.limit),
      createdAt: job.now,
    })
    .onConflictDoUpdate({
      target: [inngestJobs.runId, inngestJobs.kind, inngestJobs.stepId],
      targetWhere: sql`${inngestJobs.leaseToken} is null`,
      set: {
        attempt: sql`greatest(${inngestJobs.attempt}, excluded.attempt)`,
        runAt: sql`greatest(${inngestJobs.runAt}, excluded.run_at)`,
      },
    });
}

export async function enqueueDiscovery(tx: Tx, run: RunRow, now: Date): Promise<void> {
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

export type CreateRunOptions = {
  eventId?: string | null;
  parentRunId?: string;
  parentStepId?: string;
  /** Invocations are never dropped by the target's idempotency key. */
  skipIdempotency?: boolean;
  runId?: string;
};

/** Creates a queued run and its first discovery job; null when the function's idempotency key drops it. */
export async function createRun(
  tx: Tx,
  ctx: EngineContext,
  fn: CompiledFunction,
  event: Record<string, unknown>,
  options: CreateRunOptions = {},
): Promise<string | null> {
  const runId = options.runId ?? ulid();
  let idempotencyKey: string | null = null;
  if (fn.idempotency && !options.skipIdempotency) {
    idempotencyKey = evaluateValue(fn.idempotency, { event });
    const claimed = await tx
      .insert(inngestIdempotencyKeys)
      .values({ functionId: fn.id, key: idempotencyKey, runId, expiresAt: new Date(ctx.now.getTime() + IDEMPOTENCY_TTL_MS) })
      .onConflictDoUpdate({
        target: [inngestIdempotencyKeys.functionId, inngestIdempotencyKeys.key],
        set: { runId, expiresAt: new Date(ctx.now.getTime() + IDEMPOTENCY_TTL_MS) },
        setWhere: lte(inngestIdempotencyKeys.expiresAt, ctx.now),
      })
      .returning({ runId: inngestIdempotencyKeys.runId });
    if (claimed.length === 0) return null;
  }
  const concurrency = fn.concurrency.map((option) => ({
    key: `${option.scope === "fn" ? fn.id : option.scope}:${option.key ? evaluateValue(option.key, { event }) : ""}`,
    limit: option.limit,
  }));
  const [run] = await tx
    .insert(inngestRuns)
    .values({
      id: runId,
      partition: ctx.partition,
      functionId: fn.id,
      status: "queued",
      eventId: options.eventId ?? null,
      event,
      concurrency,
      idempotencyKey,
      parentRunId: options.parentRunId ?? null,
      parentStepId: options.parentStepId ?? null,
      createdAt: ctx.now,
      updatedAt: ctx.now,
    })
    .returning();
  await enqueueDiscovery(tx, run!, ctx.now);
  return runId;
}

export type StepResult = { data: unknown } | { error: SerializedError };

export type StepInfo = { stepId: string; displayName: string; op: string };

/** A lease to put on the follow-up discovery job, so the runner that applied a result can run it next without a claim. */
export type ContinuationLease = { token: string; owner: string; expiresAt: Date };

function textArray(values: string[]): string {
  return `{${values.map((value) => `"${value.replace(/(["\\])/g, "\\$1")}"`).join(",")}}`;
}

/**
 * Memoizes a step's result (data, or a final error), appends it to the run's stack and queues the next discovery
 * request, in one statement. Returns completed=false when the step already had a result (a duplicate report is
 * ignored: a completed step never changes). With `lease`, the discovery job is created leased and its id returned.
 */
export async function completeStep(
  tx: Tx,
  run: Pick<RunRow, "id" | "partition" | "functionId" | "concurrency">,
  hashedId: string,
  result: StepResult,
  info: StepInfo,
  now: Date,
  lease?: ContinuationLease,
): Promise<{ completed: boolean; continuationJobId: number | null }> {
  const failed = "error" in result;
  const at = now.toISOString();
  const keys = textArray(run.concurrency.map((c) => c.key));
  const limits = `{${run.concurrency.map((c) => c.limit).join(",")}}`;
  const data = failed ? null : JSON.stringify(result.data ?? null);
  const error = failed ? JSON.stringify(result.error) : null;
  const jobInsert = lease
    ? sql`insert into inngest_jobs (run_id, partition, function_id, kind, step_id, attempt, run_at, concurrency_keys, concurrency_limits, lease_token, lease_owner, lease_expires_at, created_at)
        select ${run.id}, ${run.partition}, ${run.functionId}, 'execute', ${DISCOVERY_STEP}, 0, ${at}::timestamptz, ${keys}::text[], ${limits}::int[],
          ${lease.token}, ${lease.owner}, ${lease.expiresAt.toISOString()}::timestamptz, ${at}::timestamptz
        where exists (select 1 from step)
        returning id, lease_token`
    : sql`insert into inngest_jobs (run_id, partition, function_id, kind, step_id, attempt, run_at, concurrency_keys, concurrency_limits, created_at)
        select ${run.id}, ${run.partition}, ${run.functionId}, 'execute', ${DISCOVERY_STEP}, 0, ${at}::timestamptz, ${keys}::text[], ${limits}::int[], ${at}::timestamptz
        where exists (select 1 from step)
        on conflict (run_id, kind, step_id) where lease_token is null
        do update set attempt = greatest(inngest_jobs.attempt, excluded.attempt), run_at = greatest(inngest_jobs.run_at, excluded.run_at)
        returning id, lease_token`;
  const rows = (await tx.execute(sql`
    with step as (
      insert into inngest_steps (run_id, hashed_id, step_id, display_name, op, status, data, error, completed_at, wake_at, created_at)
      values (${run.id}, ${hashedId}, ${info.stepId}, ${info.displayName}, ${info.op}, ${failed ? "failed" : "completed"},
        ${data}::jsonb, ${error}::jsonb, ${at}::timestamptz, null, ${at}::timestamptz)
      on conflict (run_id, hashed_id) do update
        set status = excluded.status, data = excluded.data, error = excluded.error, completed_at = excluded.completed_at, wake_at = null
        where inngest_steps.status not in ('completed', 'failed')
      returning hashed_id
    ), stacked as (
      update inngest_runs set stack = stack || jsonb_build_array(${hashedId}::text), updated_at = ${at}::timestamptz
      where id = ${run.id} and exists (select 1 from step)
      returning id
    )
    ${jobInsert}`)) as unknown as Array<{ id: string | number; lease_token: string | null }>;
  const row = rows[0];
  if (!row) return { completed: false, continuationJobId: null };
  return { completed: true, continuationJobId: lease && row.lease_token === lease.token ? Number(row.id) : null };
}

export type RunOutcome =
  | { status: "completed"; output: unknown }
  | { status: "failed"; error: SerializedError }
  | { status: "cancelled"; eventId: string | null };

/**
 * Ends a run: drops its pending jobs, closes its open steps, resumes a parent waiting in step.invoke and emits
 * inngest/function.finished | failed | cancelled (which triggers onFailure handlers). The run must be locked.
 */
export async function finishRun(tx: Tx, ctx: EngineContext, run: RunRow, outcome: RunOutcome, depth = 0): Promise<boolean> {
  const ended = await tx
    .update(inngestRuns)
    .set({
      status: outcome.status,
      output: outcome.status === "completed" ? (outcome.output ?? null) : null,
      error: outcome.status === "failed" ? outcome.error : null,
      cancelledByEventId: outcome.status === "cancelled" ? outcome.eventId : null,
      endedAt: ctx.now,
      updatedAt: ctx.now,
    })
    .where(and(eq(inngestRuns.id, run.id), inArray(inngestRuns.status, ACTIVE_STATUSES)))
    .returning({ id: inngestRuns.id });
  if (ended.length === 0) return false;
  // Leased jobs are left to their runner, which finds the run ended and drops its result.
  await tx.delete(inngestJobs).where(and(eq(inngestJobs.runId, run.id), sql`${inngestJobs.leaseToken} is null`));
  await tx
    .update(inngestSteps)
    .set({ status: "cancelled", wakeAt: null })
    .where(and(eq(inngestSteps.runId, run.id), inArray(inngestSteps.status, ["planned", "sleeping", "waiting", "invoking"])));

  if (run.parentRunId && run.parentStepId) {
    const parent = await lockRun(tx, run.parentRunId);
    if (parent && !isTerminal(parent.status)) {
      const result: StepResult =
        outcome.status === "completed"
          ? { data: outcome.output ?? null }
          : {
              error:
                outcome.status === "failed"
                  ? outcome.error
                  : { name: "Error", message: `Invoked function run ${run.id} (${run.functionId}) was cancelled.` },
            };
      await completeStep(tx, parent, run.parentStepId, result, { stepId: run.parentStepId, displayName: run.parentStepId, op: "InvokeFunction" }, ctx.now);
      await tx
        .delete(inngestJobs)
        .where(and(eq(inngestJobs.runId, parent.id), eq(inngestJobs.kind, "timer"), eq(inngestJobs.stepId, run.parentStepId), sql`${inngestJobs.leaseToken} is null`));
    }
  }

  const base = { function_id: run.functionId, run_id: run.id, event: run.event };
  const events: EventPayload[] = [];
  if (outcome.status === "completed") events.push({ name: "inngest/function.finished", data: { ...base, result: outcome.output ?? null } });
  if (outcome.status === "failed") {
    events.push({ name: "inngest/function.failed", data: { ...base, error: outcome.error } });
    events.push({ name: "inngest/function.finished", data: { ...base, error: outcome.error } });
  }
  if (outcome.status === "cancelled") {
    events.push({ name: "inngest/function.cancelled", data: { ...base, error: { name: "Error", message: "function cancelled" } } });
  }
  await ingestEventsInTx(tx, { ...ctx, partition: run.partition }, events, depth + 1);
  return true;
}

/**
 * Records events and acts on them in the caller's transaction: cancels runs whose cancelOn matches, starts the
 * functions they trigger (minus idempotency duplicates) and resumes matching step.waitForEvent waiters.
 * Returns the internal event ids (`inngest.send()`'s `ids`).
 */
export async function ingestEventsInTx(tx: Tx, ctx: EngineContext, payloads: EventPayload[], depth = 0): Promise<string[]> {
  const ids: string[] = [];
  if (depth > MAX_INTERNAL_EVENT_DEPTH) return ids;
  for (const payload of payloads) {
    if (!payload || typeof payload.name !== "string" || !payload.name) throw new Error("Every event needs a name.");
    const id = ulid();
    const externalId = typeof payload.id === "string" && payload.id ? payload.id : null;
    if (externalId) {
      await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`inngest-event:${externalId}`}, 0))`);
      const [duplicate] = await tx
        .select({ id: inngestEvents.id })
        .from(inngestEvents)
        .where(and(eq(inngestEvents.externalId, externalId), gt(inngestEvents.receivedAt, new Date(ctx.now.getTime() - EVENT_DEDUPE_MS))))
        .limit(1);
      if (duplicate) {
        ids.push(duplicate.id);
        continue;
      }
    }
    const event: Record<string, unknown> = {
      ...payload,
      id: externalId ?? id,
      name: payload.name,
      data: payload.data ?? {},
      ts: typeof payload.ts === "number" ? payload.ts : ctx.now.getTime(),
    };
    await tx.insert(inngestEvents).values({ id, externalId, name: payload.name, payload: event, receivedAt: ctx.now });
    ids.push(id);

    await cancelMatchingRuns(tx, ctx, event, id, depth);
    for (const fn of ctx.registry.values()) {
      const triggered = fn.eventTriggers.some(
        (trigger) => trigger.event === payload.name && (!trigger.conditions || evaluateConditions(trigger.conditions, { event })),
      );
      if (triggered) await createRun(tx, ctx, fn, event, { eventId: id });
    }
    await resumeWaiters(tx, ctx, event);
  }
  return ids;
}

function jsonPath(path: string[]): SQL {
  return sql`${`{${path.map((p) => `"${p.replace(/(["\\])/g, "\\$1")}"`).join(",")}}`}::text[]`;
}

function operandSql(operand: Operand): SQL | undefined {
  if (operand.kind === "literal") return operand.value === undefined ? undefined : sql`${JSON.stringify(operand.value)}::jsonb`;
  return sql`(${inngestRuns.event} #> ${jsonPath(operand.path)})`;
}

/** cancelOn: `event` is the run's trigger event (filtered in SQL), `async` the incoming event (bound here). */
async function cancelMatchingRuns(tx: Tx, ctx: EngineContext, event: Record<string, unknown>, eventId: string, depth: number) {
  for (const fn of ctx.registry.values()) {
    for (const cancel of fn.cancel) {
      if (cancel.event !== event.name) continue;
      const bound = bindConditions(cancel.conditions, "async", event);
      const filters: SQL[] = [];
      let possible = true;
      for (const condition of bound) {
        if (condition.left.kind === "literal" && condition.right.kind === "literal") {
          if (!evaluateConditions([condition], {})) possible = false;
          continue;
        }
        const left = operandSql(condition.left);
        const right = operandSql(condition.right);
        if (!left || !right) {
          possible = false;
          continue;
        }
        filters.push(condition.op === "==" ? sql`${left} = ${right}` : sql`(${left} is not null and ${right} is not null and ${left} <> ${right})`);
      }
      if (!possible) continue;
      if (cancel.timeoutMs !== null) filters.push(gte(inngestRuns.createdAt, new Date(ctx.now.getTime() - cancel.timeoutMs)));
      const candidates = await tx
        .select({ id: inngestRuns.id })
        .from(inngestRuns)
        .where(and(eq(inngestRuns.functionId, fn.id), inArray(inngestRuns.status, ACTIVE_STATUSES), ...filters))
        .orderBy(inngestRuns.id);
      for (const { id } of candidates) {
        const run = await lockRun(tx, id);
        if (run && !isTerminal(run.status)) await finishRun(tx, ctx, run, { status: "cancelled", eventId }, depth);
      }
    }
  }
}

async function resumeWaiters(tx: Tx, ctx: EngineContext, event: Record<string, unknown>) {
  const waiters = await tx
    .select({ runId: inngestSteps.runId, hashedId: inngestSteps.hashedId, conditions: inngestSteps.waitConditions })
    .from(inngestSteps)
    .where(
      and(
        eq(inngestSteps.status, "waiting"),
        eq(inngestSteps.waitEvent, String(event.name)),
        sql`(${inngestSteps.waitMatchPath} is null or (${JSON.stringify(event)}::jsonb #> ${inngestSteps.waitMatchPath}) = ${inngestSteps.waitMatchValue})`,
      ),
    )
    .orderBy(inngestSteps.runId);
  for (const waiter of waiters) {
    if (!evaluateConditions((waiter.conditions ?? []) as Condition[], { async: event })) continue;
    const run = await lockRun(tx, waiter.runId);
    if (!run || isTerminal(run.status)) continue;
    const [step] = await tx
      .select()
      .from(inngestSteps)
      .where(and(eq(inngestSteps.runId, run.id), eq(inngestSteps.hashedId, waiter.hashedId)))
      .for("update");
    if (step?.status !== "waiting") continue;
    await completeStep(tx, run, step.hashedId, { data: event }, step, ctx.now);
    await tx
      .delete(inngestJobs)
      .where(and(eq(inngestJobs.runId, run.id), eq(inngestJobs.kind, "timer"), eq(inngestJobs.stepId, step.hashedId), sql`${inngestJobs.leaseToken} is null`));
  }
}
