import { sql } from "drizzle-orm";
import { bigserial, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";

/**
 * Run state of the embedded Inngest runner (inngest/embedded). Only the embedded runner writes these tables;
 * against Inngest Cloud / a self-hosted Inngest they stay empty. Runs are not organization data: they are
 * visible to admins only (server/routers/jobs).
 *
 * `partition` separates runner groups that share one database: the app and `npm run seed` use "default",
 * each test runner its own, so parallel test files never execute each other's runs.
 */

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

export type RunStatus = "queued" | "running" | "completed" | "failed" | "cancelled";
export type StepStatus = "planned" | "completed" | "failed" | "sleeping" | "waiting" | "invoking" | "cancelled";
export type JobKind = "execute" | "timer";

/** A comparison the runner evaluates against an incoming event (see inngest/embedded/expressions.ts). */
export type StoredCondition = { left: StoredOperand; op: "==" | "!="; right: StoredOperand };
export type StoredOperand = { kind: "path"; root: "event" | "async"; path: string[] } | { kind: "literal"; value: unknown };

export type SerializedError = { name: string; message: string; stack?: string; [key: string]: unknown };

/** Function configurations as the serve handler reports them on an in-band sync (the runner's registry). */
export const inngestFunctions = pgTable("inngest_functions", {
  id: text("id").primaryKey(),
  appId: text("app_id").notNull(),
  name: text("name").notNull(),
  config: jsonb("config").$type<Record<string, unknown>>().notNull(),
  registeredAt: ts("registered_at").notNull(),
});

export const inngestEvents = pgTable(
  "inngest_events",
  {
    /** Internal ULID; also `event.id` when the sender gave none. */
    id: text("id").primaryKey(),
    /** The sender's `id`: events with the same id within 24 h are deduplicated. */
    externalId: text("external_id"),
    name: text("name").notNull(),
    /** The event exactly as functions receive it ({ id, name, data, ts, … }). */
    payload: jsonb("payload").$type<Record<string, unknown>>().notNull(),
    receivedAt: ts("received_at").notNull(),
  },
  (t) => [
    index("inngest_events_external_idx").on(t.externalId).where(sql`${t.externalId} is not null`),
    index("inngest_events_received_idx").on(t.receivedAt),
  ],
);

/** Event ids (`id` given by the sender) seen in the last 24 h: a second event with the same id is a duplicate. */
export const inngestEventIds = pgTable(
  "inngest_event_ids",
  {
    externalId: text("external_id").primaryKey(),
    /** The internal id of the first event with this id (what `send()` returns for the duplicate). */
    eventId: text("event_id").notNull(),
    expiresAt: ts("expires_at").notNull(),
  },
  (t) => [index("inngest_event_ids_expires_idx").on(t.expiresAt)],
);

export const inngestRuns = pgTable(
  "inngest_runs",
  {
    id: text("id").primaryKey(),
    partition: text("partition").notNull(),
    functionId: text("function_id").notNull(),
    status: text("status").$type<RunStatus>().notNull(),
    eventId: text("event_id"),
    event: jsonb("event").$type<Record<string, unknown>>().notNull(),
    /** batchEvents: every event of the batch (`event` is the first); null for a run started by one event. */
    events: jsonb("events").$type<Array<Record<string, unknown>>>(),
    /** Hashed step ids in the order they completed (the SDK's `ctx.stack`). */
    stack: jsonb("stack").$type<string[]>().notNull().default(sql`'[]'::jsonb`),
    output: jsonb("output"),
    error: jsonb("error").$type<SerializedError>(),
    /** Concurrency limits that apply to every step of this run: [{ key, limit }]. */
    concurrency: jsonb("concurrency").$type<Array<{ key: string; limit: number }>>().notNull().default(sql`'[]'::jsonb`),
    idempotencyKey: text("idempotency_key"),
    /** step.invoke: the calling run and its step, resumed with this run's result. */
    parentRunId: text("parent_run_id"),
    parentStepId: text("parent_step_id"),
    cancelledByEventId: text("cancelled_by_event_id"),
    createdAt: ts("created_at").notNull(),
    startedAt: ts("started_at"),
    endedAt: ts("ended_at"),
    updatedAt: ts("updated_at").notNull(),
  },
  (t) => [
    index("inngest_runs_created_idx").on(t.createdAt),
    index("inngest_runs_function_status_idx").on(t.functionId, t.status),
    index("inngest_runs_status_idx").on(t.status),
  ],
);

export const inngestSteps = pgTable(
  "inngest_steps",
  {
    runId: text("run_id").notNull(),
    /** The SDK's hashed step id (sha1 of the userland id). */
    hashedId: text("hashed_id").notNull(),
    stepId: text("step_id").notNull(),
    displayName: text("display_name").notNull(),
    /** The op the SDK reported: StepRun, Sleep, WaitForEvent, InvokeFunction. */
    op: text("op").notNull(),
    status: text("status").$type<StepStatus>().notNull(),
    data: jsonb("data"),
    error: jsonb("error").$type<SerializedError>(),
    /** Failed attempts so far (retries of this step). */
    attempts: integer("attempts").notNull().default(0),
    /** When a sleep ends, or a wait / invoke times out. */
    wakeAt: ts("wake_at"),
    waitEvent: text("wait_event"),
    waitExpression: text("wait_expression"),
    /** First equality of the wait condition on the incoming event, used to find waiters in SQL. */
    waitMatchPath: text("wait_match_path").array(),
    waitMatchValue: jsonb("wait_match_value"),
    waitConditions: jsonb("wait_conditions").$type<StoredCondition[]>(),
    invokeRunId: text("invoke_run_id"),
    createdAt: ts("created_at").notNull(),
    completedAt: ts("completed_at"),
  },
  (t) => [
    primaryKey({ columns: [t.runId, t.hashedId] }),
    index("inngest_steps_waiting_idx").on(t.waitEvent).where(sql`${t.status} = 'waiting'`),
  ],
);

/** Work items: one request to the serve handler (`execute`) or a timer that ends a sleep / wait / invoke (`timer`). */
export const inngestJobs = pgTable(
  "inngest_jobs",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    runId: text("run_id").notNull(),
    partition: text("partition").notNull(),
    functionId: text("function_id").notNull(),
    kind: text("kind").$type<JobKind>().notNull(),
    /** "step" for discovery, else the hashed id of the step to run (execute) or to end (timer). */
    stepId: text("step_id").notNull(),
    attempt: integer("attempt").notNull().default(0),
    runAt: ts("run_at").notNull(),
    concurrencyKeys: text("concurrency_keys").array().notNull().default(sql`'{}'::text[]`),
    concurrencyLimits: integer("concurrency_limits").array().notNull().default(sql`'{}'::int[]`),
    leaseToken: text("lease_token"),
    leaseOwner: text("lease_owner"),
    leaseExpiresAt: ts("lease_expires_at"),
    createdAt: ts("created_at").notNull(),
  },
  (t) => [
    uniqueIndex("inngest_jobs_pending_idx").on(t.runId, t.kind, t.stepId).where(sql`${t.leaseToken} is null`),
    index("inngest_jobs_due_idx").on(t.partition, t.runAt),
    index("inngest_jobs_run_idx").on(t.runId),
    index("inngest_jobs_concurrency_idx").using("gin", t.concurrencyKeys),
  ],
);

/** Every request the runner made for a run, with its outcome: the attempts and errors the dashboard shows. */
export const inngestAttempts = pgTable(
  "inngest_attempts",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    runId: text("run_id").notNull(),
    /** "step" for discovery, else the hashed step id requested. */
    stepId: text("step_id").notNull(),
    attempt: integer("attempt").notNull(),
    /** e.g. step-completed, step-error, step-failed, planned, sleeping, waiting, function-completed, function-error. */
    outcome: text("outcome").notNull(),
    httpStatus: integer("http_status"),
    error: jsonb("error").$type<SerializedError>(),
    runnerId: text("runner_id").notNull(),
    startedAt: ts("started_at").notNull(),
    durationMs: integer("duration_ms").notNull(),
  },
  (t) => [index("inngest_attempts_run_idx").on(t.runId, t.id)],
);

export const inngestIdempotencyKeys = pgTable(
  "inngest_idempotency_keys",
  {
    functionId: text("function_id").notNull(),
    key: text("key").notNull(),
    runId: text("run_id").notNull(),
    expiresAt: ts("expires_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.functionId, t.key] })],
);

export const inngestCronSchedules = pgTable(
  "inngest_cron_schedules",
  {
    partition: text("partition").notNull(),
    functionId: text("function_id").notNull(),
    cron: text("cron").notNull(),
    nextAt: ts("next_at").notNull(),
    lastFiredAt: ts("last_fired_at"),
  },
  (t) => [primaryKey({ columns: [t.partition, t.functionId, t.cron] })],
);

/**
 * batchEvents: the events waiting in a function's open batches (per partition and batch key), one row per event, so
 * that an intake appends without locking or rewriting anything. A batch is the rows of one (partition, function,
 * key) in `id` order; it becomes one run with its events when it holds `maxSize` of them or when the `flushAt` of its
 * first event (its arrival + the timeout) passes, and its rows are deleted in the run's transaction.
 */
export const inngestBatchEvents = pgTable(
  "inngest_batch_events",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    partition: text("partition").notNull(),
    functionId: text("function_id").notNull(),
    batchKey: text("batch_key").notNull(),
    /** The internal event id (inngest_events). */
    eventId: text("event_id").notNull(),
    event: jsonb("event").$type<Record<string, unknown>>().notNull(),
    flushAt: ts("flush_at").notNull(),
  },
  (t) => [
    index("inngest_batch_events_batch_idx").on(t.partition, t.functionId, t.batchKey, t.id),
    index("inngest_batch_events_flush_idx").on(t.partition, t.flushAt),
  ],
);
