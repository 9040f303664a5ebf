import { randomBytes } from "node:crypto";
import { and, asc, eq, gte, inArray, isNull, lt, lte, notInArray, or, sql } from "drizzle-orm";
import { ulid } from "ulid";
import type { Db, Tx } from "@/db";
import {
  inngestAttempts,
  inngestCronSchedules,
  inngestFunctions,
  inngestJobs,
  inngestRuns,
  inngestSteps,
  type SerializedError,
} from "@/db/schema/jobs";
import { resolveWakeTime } from "./durations";
import { bindConditions, ExpressionError, parseCondition, type Condition } from "./expressions";
import { compileFunctions, type CompiledFunction, type FunctionConfig, type FunctionRegistry } from "./registry";
import {
  completeStep,
  createRun,
  DISCOVERY_STEP,
  enqueueJob,
  finishRun,
  isTerminal,
  lockRun,
  lockRunAndReleaseJob,
  serializeError,
  transaction,
  type ContinuationLease,
  type EngineContext,
  type RunRow,
  type StepInfo,
} from "./state";
import { DEFAULT_PARTITION, EMBEDDED_TOKEN_HEADER, embeddedRunnerToken, registerLocalRunner, unregisterLocalRunner } from "./transport";

export type EmbeddedRunnerOptions = {
  db: Db;
  /** The app's serve handler as a fetch function (inngest/serve.ts); called in-process, no port. */
  handler: (request: Request) => Promise<Response>;
  /** Clock for every scheduling decision (tests inject one). */
  now?: () => Date;
  partition?: string;
  /** Background polling (the server). Tests leave it off and call drain(). */
  autoPoll?: boolean;
  pollIntervalMs?: number;
  /** Jobs executed at once by this runner. */
  concurrency?: number;
  /** A claimed job is re-claimable by another runner once its lease expires (runner crash); renewed while running. */
  leaseMs?: number;
  /** 0..1; jitter added to retry backoff. */
  random?: () => number;
  logger?: Pick<Console, "info" | "warn" | "error">;
};

type Job = {
  id: number;
  runId: string;
  functionId: string;
  kind: "execute" | "timer";
  stepId: string;
  attempt: number;
  leaseToken: string;
};

type Continuation = { lease: ContinuationLease | undefined; jobId: number | null };

type OutgoingOp = {
  id: string;
  op: string;
  name?: string;
  displayName?: string;
  userland?: { id?: string };
  opts?: Record<string, unknown>;
  data?: unknown;
  error?: unknown;
};

/** The serve URL the runner reports on sync and calls; never resolved (the handler is called in-process). */
const SERVE_URL = "http://app.embedded.invalid/api/inngest";
const MAX_BACKOFF_MS = 12 * 60 * 60 * 1000;
const BASE_BACKOFF_MS = 10_000;
/** Retention: ended runs (with their steps and attempts) and events are deleted after these ages, hourly. */
export const RUN_RETENTION_MS = 14 * 86_400_000;
export const EVENT_RETENTION_MS = 7 * 86_400_000;
const PRUNE_INTERVAL_MS = 60 * 60 * 1000;
const PRUNE_BATCH = 5000;

/** Requests of one run executed back to back before the runner goes back to the queue (fairness). */
const MAX_CHAINED_REQUESTS = 50;
const SUPPORTED_OPS = new Set(["StepRun", "StepError", "StepFailed", "StepPlanned", "Sleep", "WaitForEvent", "InvokeFunction", "RunComplete"]);

export function retryDelayMs(attempt: number, random: () => number): number {
  const base = Math.min(BASE_BACKOFF_MS * 2 ** Math.max(0, attempt - 1), MAX_BACKOFF_MS);
  return Math.round(base * (1 + 0.2 * random()));
}

/** `retry-after` as the SDK sends it for RetryAfterError: seconds, or an ISO date. */
function retryAfterMs(header: string | null, now: Date): number | null {
  if (!header) return null;
  if (/^\d+(\.\d+)?$/.test(header.trim())) return Number(header) * 1000;
  const date = new Date(header);
  return Number.isNaN(date.getTime()) ? null : Math.max(0, date.getTime() - now.getTime());
}

/**
 * The embedded Inngest runner: an in-process stand-in for the Inngest server. See inngest/embedded/index.ts.
 */
export class EmbeddedRunner {
  readonly id = `runner-${ulid().toLowerCase()}`;
  readonly partition: string;
  private registry: FunctionRegistry = new Map();
  private readonly db: Db;
  private readonly handler: (request: Request) => Promise<Response>;
  private readonly clock: () => Date;
  private readonly concurrency: number;
  private readonly leaseMs: number;
  private readonly pollIntervalMs: number;
  private readonly random: () => number;
  private readonly logger: Pick<Console, "info" | "warn" | "error">;
  private readonly autoPoll: boolean;
  private readonly inflight = new Set<Promise<void>>();
  private started = false;
  private stopped = false;
  private pumping = false;
  private pumpAgain = false;
  private pollTimer: NodeJS.Timeout | undefined;
  private lastPruneAt = 0;

  constructor(options: EmbeddedRunnerOptions) {
    this.db = options.db;
    this.handler = options.handler;
    this.clock = options.now ?? (() => new Date());
    this.partition = options.partition ?? DEFAULT_PARTITION;
    this.concurrency = options.concurrency ?? 8;
    this.leaseMs = options.leaseMs ?? 60_000;
    this.pollIntervalMs = options.pollIntervalMs ?? 500;
    this.random = options.random ?? Math.random;
    this.logger = options.logger ?? console;
    this.autoPoll = options.autoPoll ?? false;
  }

  now(): Date {
    return this.clock();
  }

  functions(): FunctionRegistry {
    return this.registry;
  }

  private context(): EngineContext {
    return { now: this.now(), partition: this.partition, registry: this.registry };
  }

  /**
   * Syncs the functions over the SDK's in-band sync (PUT), refuses configurations it cannot honour
   * (UnsupportedConfigurationError), records them and their cron schedules, and starts polling if asked.
   */
  async start(): Promise<void> {
    if (this.started) return;
    const response = await this.handler(
      new Request(SERVE_URL, {
        method: "PUT",
        headers: { "content-type": "application/json", "x-inngest-sync-kind": "in_band", [EMBEDDED_TOKEN_HEADER]: embeddedRunnerToken() },
        body: JSON.stringify({ url: SERVE_URL }),
      }),
    );
    const body = (await response.json().catch(() => null)) as { functions?: FunctionConfig[] } | null;
    if (response.status !== 200 || !body?.functions) {
      throw new Error(`Inngest sync failed: the serve handler answered ${response.status} ${JSON.stringify(body)}`);
    }
    this.registry = compileFunctions(body.functions);
    await this.recordRegistration();
    this.started = true;
    this.stopped = false;
    registerLocalRunner({
      id: this.id,
      db: this.db,
      partition: this.partition,
      now: () => this.now(),
      registry: () => this.registry,
      poke: () => this.poke(),
    });
    if (this.autoPoll) {
      this.pollTimer = setInterval(() => this.poke(), this.pollIntervalMs);
      this.pollTimer.unref?.();
      this.poke();
    }
  }

  private async recordRegistration() {
    const now = this.now();
    await transaction(this.db, async (tx) => {
      for (const fn of this.registry.values()) {
        const appId = fn.id.startsWith("outbound-calling-") ? "outbound-calling" : fn.id.split("-")[0]!;
        await tx
          .insert(inngestFunctions)
          .values({ id: fn.id, appId, name: fn.name, config: fn.config, registeredAt: now })
          .onConflictDoUpdate({ target: inngestFunctions.id, set: { name: fn.name, config: fn.config, registeredAt: now } });
        const crons = fn.cronTriggers.map((trigger) => trigger.cron);
        await tx
          .delete(inngestCronSchedules)
          .where(
            and(
              eq(inngestCronSchedules.partition, this.partition),
              eq(inngestCronSchedules.functionId, fn.id),
              crons.length ? sql`${inngestCronSchedules.cron} not in ${crons}` : undefined,
            ),
          );
        for (const trigger of fn.cronTriggers) {
          const nextAt = trigger.schedule.nextRun(now);
          if (!nextAt) continue;
          await tx
            .insert(inngestCronSchedules)
            .values({ partition: this.partition, functionId: fn.id, cron: trigger.cron, nextAt })
            .onConflictDoNothing();
        }
      }
    });
  }

  /** Waits for running jobs, stops polling and leaves the process registry. Pending work stays in the database. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.pollTimer) clearInterval(this.pollTimer);
    this.pollTimer = undefined;
    while (this.inflight.size) await Promise.allSettled([...this.inflight]);
    unregisterLocalRunner(this.id);
    this.started = false;
  }

  /** Something may be runnable now (an event arrived, a job was queued): claim without waiting for the poll. */
  poke(): void {
    if (!this.autoPoll || this.stopped || !this.started) return;
    void this.pump();
  }

  private async pump(): Promise<void> {
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    this.pumping = true;
    try {
      do {
        this.pumpAgain = false;
        if (this.stopped) return;
        if (Date.now() - this.lastPruneAt > PRUNE_INTERVAL_MS) {
          this.lastPruneAt = Date.now();
          await this.prune().catch((error) => this.logger.warn("[inngest-embedded] pruning old runs failed", error));
        }
        await this.fireDueCrons();
        const capacity = this.concurrency - this.inflight.size;
        if (capacity <= 0) return;
        const jobs = await this.claim(capacity);
        for (const job of jobs) this.track(job);
        if (jobs.length === capacity) this.pumpAgain = true;
      } while (this.pumpAgain);
    } catch (error) {
      this.logger.error("[inngest-embedded] polling failed", error);
    } finally {
      this.pumping = false;
    }
  }

  private track(job: Job) {
    const promise: Promise<void> = this.execute(job)
      .then(() => undefined)
      .catch((error) => this.logger.error(`[inngest-embedded] job ${job.id} (run ${job.runId}) failed`, error))
      .finally(() => {
        this.inflight.delete(promise);
        this.poke();
      });
    this.inflight.add(promise);
  }

  /**
   * Runs everything runnable at the current clock, round after round, until nothing is left (tests).
   * Returns the number of jobs executed (requests and timers).
   */
  async drain(options: { maxJobs?: number } = {}): Promise<number> {
    const maxJobs = options.maxJobs ?? 10_000;
    let executed = 0;
    for (;;) {
      await this.fireDueCrons();
      const jobs = await this.claim(this.concurrency);
      if (jobs.length === 0) {
        if (this.inflight.size === 0) return executed;
        await Promise.allSettled([...this.inflight]);
        continue;
      }
      const counts = await Promise.all(jobs.map((job) => this.execute(job)));
      executed += counts.reduce((sum, count) => sum + count, 0);
      if (executed > maxJobs) throw new Error(`drain() executed more than ${maxJobs} jobs: a function loops?`);
    }
  }

  /**
   * Deletes ended runs of this partition older than RUN_RETENTION_MS (with their steps and attempts), events older
   * than EVENT_RETENTION_MS and expired idempotency keys. The polling runner calls it hourly; returns what it deleted.
   */
  async prune(): Promise<{ runs: number; events: number }> {
    const now = this.now();
    const runCutoff = new Date(now.getTime() - RUN_RETENTION_MS).toISOString();
    const eventCutoff = new Date(now.getTime() - EVENT_RETENTION_MS).toISOString();
    let runs = 0;
    let events = 0;
    for (;;) {
      const deleted = (await this.db.execute(sql`
        with old as (
          select id from inngest_runs
          where partition = ${this.partition} and ended_at < ${runCutoff}::timestamptz
          limit ${PRUNE_BATCH}
        ), steps as (delete from inngest_steps where run_id in (select id from old)),
        attempts as (delete from inngest_attempts where run_id in (select id from old))
        delete from inngest_runs where id in (select id from old) returning id`)) as unknown as unknown[];
      runs += deleted.length;
      if (deleted.length < PRUNE_BATCH) break;
    }
    for (;;) {
      const deleted = (await this.db.execute(sql`
        delete from inngest_events where id in (
          select id from inngest_events where received_at < ${eventCutoff}::timestamptz limit ${PRUNE_BATCH}
        ) returning id`)) as unknown as unknown[];
      events += deleted.length;
      if (deleted.length < PRUNE_BATCH) break;
    }
    await this.db.execute(sql`delete from inngest_idempotency_keys where expires_at < ${now.toISOString()}::timestamptz`);
    return { runs, events };
  }

  /** The earliest time something of this runner becomes runnable (job or cron), or null. */
  async nextWakeAt(): Promise<Date | null> {
    const ids = [...this.registry.keys()];
    if (ids.length === 0) return null;
    const [job] = await this.db
      .select({ at: sql<Date | null>`min(${inngestJobs.runAt})` })
      .from(inngestJobs)
      .where(and(eq(inngestJobs.partition, this.partition), inArray(inngestJobs.functionId, ids), sql`${inngestJobs.leaseToken} is null`));
    const [cron] = await this.db
      .select({ at: sql<Date | null>`min(${inngestCronSchedules.nextAt})` })
      .from(inngestCronSchedules)
      .where(and(eq(inngestCronSchedules.partition, this.partition), inArray(inngestCronSchedules.functionId, ids)));
    const times = [job?.at, cron?.at].filter((value): value is Date => value !== null && value !== undefined).map((value) => new Date(value));
    if (times.length === 0) return null;
    return new Date(Math.min(...times.map((time) => time.getTime())));
  }

  private async fireDueCrons(): Promise<void> {
    const ids = [...this.registry.entries()].filter(([, fn]) => fn.cronTriggers.length).map(([id]) => id);
    if (ids.length === 0) return;
    const ctx = this.context();
    let fired = false;
    await transaction(this.db, async (tx) => {
      const due = await tx
        .select()
        .from(inngestCronSchedules)
        .where(
          and(
            eq(inngestCronSchedules.partition, this.partition),
            inArray(inngestCronSchedules.functionId, ids),
            lte(inngestCronSchedules.nextAt, ctx.now),
          ),
        )
        .for("update", { skipLocked: true });
      for (const schedule of due) {
        const fn = this.registry.get(schedule.functionId);
        const trigger = fn?.cronTriggers.find((candidate) => candidate.cron === schedule.cron);
        if (!fn || !trigger) continue;
        // One run per due schedule, however many ticks were missed while no runner was up.
        const nextAt = trigger.schedule.nextRun(ctx.now) ?? new Date(ctx.now.getTime() + 365 * 86_400_000);
        await tx
          .update(inngestCronSchedules)
          .set({ nextAt, lastFiredAt: ctx.now })
          .where(
            and(
              eq(inngestCronSchedules.partition, schedule.partition),
              eq(inngestCronSchedules.functionId, schedule.functionId),
              eq(inngestCronSchedules.cron, schedule.cron),
            ),
          );
        const event = { id: ulid(), name: "inngest/scheduled.timer", data: { cron: schedule.cron }, ts: ctx.now.getTime() };
        await createRun(tx, ctx, fn, event);
        fired = true;
      }
    });
    if (fired) this.poke();
  }

  /**
   * Leases due jobs. Safe with several runners on one database: candidates are locked with SKIP LOCKED, and a
   * concurrency key is checked under a transaction-scoped advisory lock on that key, counting live leases.
   */
  private async claim(limit: number): Promise<Job[]> {
    const ids = [...this.registry.keys()];
    if (ids.length === 0 || limit <= 0) return [];
    const now = this.now();
    return transaction(this.db, async (tx) => {
      const claimed: Job[] = [];
      const passedOver: number[] = [];
      const leaseToken = randomBytes(12).toString("hex");
      const grantedByKey = new Map<string, number>();
      const discoveryGranted = new Set<string>();
      // Lock only as many rows as can be leased; rows passed over (discovery or concurrency busy) are excluded from
      // the next round, so a busy key cannot starve the others and other runners can take what this one leaves.
      for (let round = 0; round < 4 && claimed.length < limit; round++) {
        const wanted = limit - claimed.length;
        const candidates = await tx
          .select({
            id: inngestJobs.id,
            runId: inngestJobs.runId,
            functionId: inngestJobs.functionId,
            kind: inngestJobs.kind,
            stepId: inngestJobs.stepId,
            attempt: inngestJobs.attempt,
            keys: inngestJobs.concurrencyKeys,
            limits: inngestJobs.concurrencyLimits,
          })
          .from(inngestJobs)
          .where(
            and(
              eq(inngestJobs.partition, this.partition),
              inArray(inngestJobs.functionId, ids),
              lte(inngestJobs.runAt, now),
              or(isNull(inngestJobs.leaseToken), lt(inngestJobs.leaseExpiresAt, now)),
              passedOver.length ? notInArray(inngestJobs.id, passedOver) : undefined,
            ),
          )
          .orderBy(asc(inngestJobs.runAt), asc(inngestJobs.id))
          .limit(wanted)
          .for("update", { skipLocked: true });
        const busyRuns = await this.runsWithDiscoveryRunning(
          tx,
          candidates.filter((c) => c.kind === "execute" && c.stepId === DISCOVERY_STEP).map((c) => ({ runId: c.runId, id: c.id })),
          now,
        );
        const leased: number[] = [];
        for (const candidate of candidates) {
          const isDiscovery = candidate.kind === "execute" && candidate.stepId === DISCOVERY_STEP;
          const busy =
            (isDiscovery && (busyRuns.has(candidate.runId) || discoveryGranted.has(candidate.runId))) ||
            (candidate.keys.length > 0 && !(await this.hasConcurrencyRoom(tx, candidate.keys, candidate.limits, now, grantedByKey)));
          if (busy) {
            passedOver.push(candidate.id);
            continue;
          }
          for (const key of candidate.keys) grantedByKey.set(key, (grantedByKey.get(key) ?? 0) + 1);
          if (isDiscovery) discoveryGranted.add(candidate.runId);
          leased.push(candidate.id);
          claimed.push({ ...candidate, leaseToken });
        }
        if (leased.length) {
          await tx
            .update(inngestJobs)
            .set({ leaseToken, leaseOwner: this.id, leaseExpiresAt: new Date(now.getTime() + this.leaseMs) })
            .where(inArray(inngestJobs.id, leased));
        }
        if (candidates.length < wanted) break;
      }
      return claimed;
    });
  }

  /**
   * At most one discovery request per run at a time: two concurrent discoveries could both execute the same new
   * step immediately. Checked under advisory locks on the runs (taken in order) so two claimers cannot both pass.
   */
  private async runsWithDiscoveryRunning(tx: Tx, candidates: Array<{ runId: string; id: number }>, now: Date): Promise<Set<string>> {
    if (candidates.length === 0) return new Set();
    const runIds = [...new Set(candidates.map((c) => c.runId))].sort();
    const keys = runIds.map((runId) => `inngest-discovery:${runId}`);
    await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(k, 0)) from unnest(${`{${keys.map((k) => `"${k}"`).join(",")}}`}::text[]) as k order by k`);
    const running = await tx
      .select({ runId: inngestJobs.runId })
      .from(inngestJobs)
      .where(
        and(
          inArray(inngestJobs.runId, runIds),
          eq(inngestJobs.kind, "execute"),
          eq(inngestJobs.stepId, DISCOVERY_STEP),
          notInArray(inngestJobs.id, candidates.map((c) => c.id)),
          sql`${inngestJobs.leaseToken} is not null`,
          gte(inngestJobs.leaseExpiresAt, now),
        ),
      );
    return new Set(running.map((row) => row.runId));
  }

  /** Whether every concurrency key of a job has room: live leases in the database plus those granted in this claim. */
  private async hasConcurrencyRoom(tx: Tx, keys: string[], limits: number[], now: Date, granted: Map<string, number>): Promise<boolean> {
    const order = keys.map((key, index) => ({ key, limit: limits[index] ?? 1 })).sort((a, b) => a.key.localeCompare(b.key));
    for (const { key, limit } of order) {
      await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`inngest-concurrency:${key}`}, 0))`);
      const [row] = await tx
        .select({ active: sql<number>`count(*)::int` })
        .from(inngestJobs)
        .where(and(sql`${inngestJobs.concurrencyKeys} @> array[${key}]::text[]`, sql`${inngestJobs.leaseToken} is not null`, gte(inngestJobs.leaseExpiresAt, now)));
      if ((row?.active ?? 0) + (granted.get(key) ?? 0) >= limit) return false;
    }
    return true;
  }

  /**
   * Executes a job, then the discovery request its result queued for the same run when this runner could lease
   * it in the same transaction (a run's steps follow each other without a claim in between), up to a bound.
   */
  private async execute(job: Job): Promise<number> {
    let next: Job | null = job;
    let executed = 0;
    for (; next; executed++) next = await this.executeOne(next, executed < MAX_CHAINED_REQUESTS && !this.stopped);
    return executed;
  }

  private async executeOne(job: Job, mayContinue: boolean): Promise<Job | null> {
    if (job.kind === "timer") {
      await this.fireTimer(job);
      return null;
    }
    const fn = this.registry.get(job.functionId);
    const snapshot = await this.loadRun(job);
    if (!fn || !snapshot || isTerminal(snapshot.run.status) || snapshot.stepDone) {
      await transaction(this.db, async (tx) => {
        const run = await lockRun(tx, job.runId);
        if (!(await this.releaseJob(tx, job))) return;
        if (!run || isTerminal(run.status)) return;
        if (!fn) await finishRun(tx, this.context(), run, { status: "failed", error: { name: "Error", message: `Function "${job.functionId}" is not registered.` } });
        else if (snapshot?.stepDone) await this.enqueueDiscoveryFor(tx, run);
      });
      return null;
    }

    const startedAt = Date.now();
    const body = {
      version: -1,
      event: snapshot.run.event,
      events: [snapshot.run.event],
      steps: snapshot.memo,
      ctx: {
        run_id: snapshot.run.id,
        attempt: job.attempt,
        max_attempts: fn.maxAttempts,
        disable_immediate_execution: job.stepId !== DISCOVERY_STEP || snapshot.otherStepJobs,
        use_api: false,
        stack: { stack: snapshot.run.stack, current: Math.max(0, snapshot.run.stack.length - 1) },
      },
    };
    const url = `${SERVE_URL}?fnId=${encodeURIComponent(fn.id)}&stepId=${encodeURIComponent(job.stepId)}`;
    const heartbeat = setInterval(() => void this.renewLease(job), Math.max(1000, Math.floor(this.leaseMs / 3)));
    let response: { status: number; headers: Headers; body: unknown };
    try {
      const res = await this.handler(
        new Request(url, {
          method: "POST",
          headers: { "content-type": "application/json", [EMBEDDED_TOKEN_HEADER]: embeddedRunnerToken() },
          body: JSON.stringify(body),
        }),
      );
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : null;
      } catch {
        // A non-JSON body (a proxy error page) stays text.
      }
      response = { status: res.status, headers: res.headers, body: parsed };
    } catch (error) {
      response = { status: 599, headers: new Headers(), body: serializeError(error) };
    } finally {
      clearInterval(heartbeat);
    }
    // The next discovery may be leased to this runner only if this job was the run's discovery (so no other
    // discovery of the run can be running) and no concurrency key has to be shared fairly.
    const continuation: Continuation = {
      lease:
        mayContinue && job.stepId === DISCOVERY_STEP && snapshot.run.concurrency.length === 0
          ? { token: randomBytes(12).toString("hex"), owner: this.id, expiresAt: new Date(this.now().getTime() + this.leaseMs) }
          : undefined,
      jobId: null,
    };
    await transaction(this.db, (tx) => {
      continuation.jobId = null;
      return this.applyResponse(tx, job, fn, response, { startedAt }, continuation);
    });
    if (continuation.jobId === null || !continuation.lease) return null;
    return { id: continuation.jobId, runId: job.runId, functionId: job.functionId, kind: "execute", stepId: DISCOVERY_STEP, attempt: 0, leaseToken: continuation.lease.token };
  }

  /**
   * The run, its memoized steps and whether other step requests are pending, in one statement (one snapshot),
   * so the stack, the step results and the pending jobs agree with each other.
   */
  private async loadRun(job: Job) {
    const rows = (await this.db.execute(sql`
      select r.id, r.partition, r.function_id, r.status, r.event, r.stack, r.concurrency,
        (select coalesce(jsonb_object_agg(s.hashed_id, case when s.status = 'completed'
            then jsonb_build_object('type', 'data', 'data', coalesce(s.data, 'null'::jsonb))
            else jsonb_build_object('type', 'error', 'error', s.error) end), '{}'::jsonb)
          from inngest_steps s where s.run_id = r.id and s.status in ('completed', 'failed')) as memo,
        exists (select 1 from inngest_jobs j where j.run_id = r.id and j.kind = 'execute'
          and j.step_id <> ${DISCOVERY_STEP} and j.id <> ${job.id}) as other_step_jobs
      from inngest_runs r where r.id = ${job.runId}`)) as unknown as Array<{
      id: string;
      partition: string;
      function_id: string;
      status: RunRow["status"];
      event: Record<string, unknown>;
      stack: string[];
      concurrency: RunRow["concurrency"];
      memo: Record<string, { type: "data"; data: unknown } | { type: "error"; error: unknown }>;
      other_step_jobs: boolean;
    }>;
    const row = rows[0];
    if (!row) return null;
    const run = { id: row.id, partition: row.partition, functionId: row.function_id, status: row.status, event: row.event, stack: row.stack, concurrency: row.concurrency };
    const stepDone = job.stepId !== DISCOVERY_STEP && row.memo[job.stepId] !== undefined;
    return { run, memo: row.memo, stepDone, otherStepJobs: row.other_step_jobs };
  }

  private async renewLease(job: Job) {
    await this.db
      .update(inngestJobs)
      .set({ leaseExpiresAt: new Date(this.now().getTime() + this.leaseMs) })
      .where(and(eq(inngestJobs.id, job.id), eq(inngestJobs.leaseToken, job.leaseToken)))
      .catch(() => {});
  }

  /** Deletes the job if this runner still holds its lease; false when another runner took it over. */
  private async releaseJob(tx: Tx, job: Job): Promise<boolean> {
    const deleted = await tx
      .delete(inngestJobs)
      .where(and(eq(inngestJobs.id, job.id), eq(inngestJobs.leaseToken, job.leaseToken)))
      .returning({ id: inngestJobs.id });
    return deleted.length > 0;
  }

  private async enqueueDiscoveryFor(tx: Tx, run: RunRow) {
    await enqueueJob(tx, {
      runId: run.id,
      partition: run.partition,
      functionId: run.functionId,
      kind: "execute",
      stepId: DISCOVERY_STEP,
      runAt: this.now(),
      concurrency: run.concurrency,
      now: this.now(),
    });
  }

  private async recordAttempt(
    tx: Tx,
    job: Job,
    outcome: string,
    details: { httpStatus?: number; error?: SerializedError | null; startedAt: number; stepId?: string },
  ) {
    await tx.insert(inngestAttempts).values({
      runId: job.runId,
      stepId: details.stepId ?? job.stepId,
      attempt: job.attempt,
      outcome,
      httpStatus: details.httpStatus ?? null,
      error: details.error ?? null,
      runnerId: this.id,
      startedAt: new Date(this.now().getTime() - (Date.now() - details.startedAt)),
      durationMs: Date.now() - details.startedAt,
    });
  }

  private async applyResponse(
    tx: Tx,
    job: Job,
    fn: CompiledFunction,
    response: { status: number; headers: Headers; body: unknown },
    timing: { startedAt: number },
    continuation: Continuation,
  ): Promise<void> {
    const ctx = this.context();
    const { run, released } = await lockRunAndReleaseJob(tx, job);
    if (!released) return; // Lease lost: another runner owns this request now.
    if (!run || isTerminal(run.status)) return;
    if (run.status === "queued") {
      await tx.update(inngestRuns).set({ status: "running", startedAt: ctx.now, updatedAt: ctx.now }).where(eq(inngestRuns.id, run.id));
    }
    const { status, headers, body } = response;

    if (status === 200) {
      await this.recordAttempt(tx, job, "function-completed", { httpStatus: status, startedAt: timing.startedAt });
      await finishRun(tx, ctx, run, { status: "completed", output: body });
      return;
    }

    if (status === 206 && Array.isArray(body)) {
      for (const op of body as OutgoingOp[]) {
        if (await this.applyOp(tx, ctx, job, fn, run, op, headers, timing, continuation)) return;
      }
      return;
    }

    const error = serializeError(
      body && typeof body === "object" ? body : { name: "Error", message: `Serve handler answered ${status}: ${String(body).slice(0, 500)}` },
    );
    const noRetry = headers.get("x-inngest-no-retry") === "true";
    const nextAttempt = job.attempt + 1;
    if (noRetry || nextAttempt >= fn.maxAttempts) {
      await this.recordAttempt(tx, job, "function-failed", { httpStatus: status, error, startedAt: timing.startedAt });
      await finishRun(tx, ctx, run, { status: "failed", error });
      return;
    }
    await this.recordAttempt(tx, job, "function-error", { httpStatus: status, error, startedAt: timing.startedAt });
    const delay = retryAfterMs(headers.get("retry-after"), ctx.now) ?? retryDelayMs(nextAttempt, this.random);
    await enqueueJob(tx, {
      runId: run.id,
      partition: run.partition,
      functionId: run.functionId,
      kind: "execute",
      stepId: job.stepId,
      attempt: nextAttempt,
      runAt: new Date(ctx.now.getTime() + delay),
      concurrency: run.concurrency,
      now: ctx.now,
    });
  }

  private async applyOp(
    tx: Tx,
    ctx: EngineContext,
    job: Job,
    fn: CompiledFunction,
    run: RunRow,
    op: OutgoingOp,
    headers: Headers,
    timing: { startedAt: number },
    continuation: Continuation,
  ): Promise<boolean> {
    const info: StepInfo = { stepId: op.userland?.id ?? op.name ?? op.id, displayName: op.displayName ?? op.name ?? op.id, op: op.op };
    const attempt = (outcome: string, error?: SerializedError) =>
      this.recordAttempt(tx, job, outcome, { httpStatus: 206, error, startedAt: timing.startedAt, stepId: op.id });

    if (!SUPPORTED_OPS.has(op.op)) {
      const error = {
        name: "UnsupportedOperationError",
        message: `Function "${fn.id}" used ${op.op} (step "${info.displayName}"), which the embedded Inngest runner does not support. Run against an Inngest server (INNGEST_DEV=1 or INNGEST_BASE_URL) to use it.`,
      };
      await attempt("unsupported-op", error);
      await finishRun(tx, ctx, run, { status: "failed", error });
      return true;
    }

    switch (op.op) {
      case "RunComplete": {
        await attempt("function-completed");
        await finishRun(tx, ctx, run, { status: "completed", output: op.data ?? null });
        return true;
      }
      case "StepRun": {
        await attempt("step-completed");
        const { continuationJobId } = await completeStep(tx, run, op.id, { data: op.data ?? null }, { ...info, op: "StepRun" }, ctx.now, continuation.lease);
        continuation.jobId = continuationJobId;
        if (job.stepId !== DISCOVERY_STEP) await this.dropStepJobs(tx, run.id, op.id);
        return false;
      }
      case "StepFailed": {
        const error = serializeError(op.error ?? { name: "Error", message: "step failed" });
        await attempt("step-failed", error);
        const { continuationJobId } = await completeStep(tx, run, op.id, { error }, { ...info, op: "StepRun" }, ctx.now, continuation.lease);
        continuation.jobId = continuationJobId;
        if (job.stepId !== DISCOVERY_STEP) await this.dropStepJobs(tx, run.id, op.id);
        return false;
      }
      case "StepError": {
        const error = serializeError(op.error ?? { name: "Error", message: "step errored" });
        const nextAttempt = job.attempt + 1;
        if (nextAttempt >= fn.maxAttempts) {
          await attempt("step-failed", error);
          await completeStep(tx, run, op.id, { error }, { ...info, op: "StepRun" }, ctx.now);
          return false;
        }
        await attempt("step-error", error);
        await tx
          .insert(inngestSteps)
          .values({ runId: run.id, hashedId: op.id, ...info, op: "StepRun", status: "planned", error, attempts: nextAttempt, createdAt: ctx.now })
          .onConflictDoUpdate({
            target: [inngestSteps.runId, inngestSteps.hashedId],
            set: { error, attempts: nextAttempt },
            setWhere: sql`${inngestSteps.status} not in ('completed', 'failed')`,
          });
        const delay = retryAfterMs(headers.get("retry-after"), ctx.now) ?? retryDelayMs(nextAttempt, this.random);
        await enqueueJob(tx, {
          runId: run.id,
          partition: run.partition,
          functionId: run.functionId,
          kind: "execute",
          stepId: op.id,
          attempt: nextAttempt,
          runAt: new Date(ctx.now.getTime() + delay),
          concurrency: run.concurrency,
          now: ctx.now,
        });
        return false;
      }
      case "StepPlanned": {
        const inserted = await this.insertStep(tx, run, op.id, { ...info, op: "StepRun" }, "planned", {});
        if (!inserted) return false;
        await attempt("planned");
        await enqueueJob(tx, {
          runId: run.id,
          partition: run.partition,
          functionId: run.functionId,
          kind: "execute",
          stepId: op.id,
          runAt: ctx.now,
          concurrency: run.concurrency,
          now: ctx.now,
        });
        return false;
      }
      case "Sleep": {
        let wakeAt: Date;
        try {
          wakeAt = resolveWakeTime(String(op.name ?? ""), ctx.now);
        } catch (error) {
          await this.failStep(tx, run, op.id, info, serializeError(error), ctx.now, attempt);
          return false;
        }
        const inserted = await this.insertStep(tx, run, op.id, info, "sleeping", { wakeAt });
        if (!inserted) return false;
        await attempt("sleeping");
        await this.scheduleTimer(tx, run, op.id, wakeAt);
        return false;
      }
      case "WaitForEvent": {
        const expression = typeof op.opts?.if === "string" ? op.opts.if : null;
        let conditions: Condition[] = [];
        let wakeAt: Date;
        try {
          if (expression) conditions = bindConditions(parseCondition(expression), "event", run.event);
          wakeAt = resolveWakeTime(String(op.opts?.timeout ?? ""), ctx.now);
        } catch (error) {
          const message = error instanceof ExpressionError ? `Function "${fn.id}", step "${info.displayName}" (waitForEvent): ${error.message}` : (error as Error).message;
          await this.failStep(tx, run, op.id, info, { name: "UnsupportedExpressionError", message }, ctx.now, attempt);
          return false;
        }
        const match = conditions.find(
          (condition) =>
            condition.op === "==" &&
            ((condition.left.kind === "path" && condition.left.root === "async" && condition.right.kind === "literal" && condition.right.value !== undefined) ||
              (condition.right.kind === "path" && condition.right.root === "async" && condition.left.kind === "literal" && condition.left.value !== undefined)),
        );
        const matchPath = match ? (match.left.kind === "path" ? match.left.path : match.right.kind === "path" ? match.right.path : null) : null;
        const matchValue = match ? (match.left.kind === "literal" ? match.left.value : match.right.kind === "literal" ? match.right.value : null) : null;
        const inserted = await this.insertStep(tx, run, op.id, info, "waiting", {
          wakeAt,
          waitEvent: String(op.name),
          waitExpression: expression,
          waitConditions: conditions,
          waitMatchPath: matchPath,
          waitMatchValue: matchPath ? matchValue : null,
        });
        if (!inserted) return false;
        await attempt("waiting");
        await this.scheduleTimer(tx, run, op.id, wakeAt);
        return false;
      }
      case "InvokeFunction": {
        const functionId = String(op.opts?.function_id ?? "");
        const target = this.registry.get(functionId);
        if (!target) {
          await this.failStep(tx, run, op.id, info, { name: "Error", message: `step.invoke: function "${functionId}" is not registered.` }, ctx.now, attempt);
          return false;
        }
        let wakeAt: Date | null = null;
        if (op.opts?.timeout) wakeAt = resolveWakeTime(String(op.opts.timeout), ctx.now);
        const childRunId = ulid();
        const inserted = await this.insertStep(tx, run, op.id, info, "invoking", { wakeAt, invokeRunId: childRunId });
        if (!inserted) return false;
        await attempt("invoking");
        const payload = (op.opts?.payload ?? {}) as { data?: Record<string, unknown> };
        const event = {
          id: ulid(),
          name: "inngest/function.invoked",
          data: { ...(payload.data ?? {}), _inngest: { source_fn_id: run.functionId, source_run_id: run.id, invoke_correlation_id: `${run.id}.${op.id}` } },
          ts: ctx.now.getTime(),
        };
        await createRun(tx, { ...ctx, partition: run.partition }, target, event, {
          runId: childRunId,
          parentRunId: run.id,
          parentStepId: op.id,
          skipIdempotency: true,
        });
        if (wakeAt) await this.scheduleTimer(tx, run, op.id, wakeAt);
        return false;
      }
    }
    return false;
  }

  private async insertStep(
    tx: Tx,
    run: RunRow,
    hashedId: string,
    info: StepInfo,
    status: "planned" | "sleeping" | "waiting" | "invoking",
    extra: Partial<typeof inngestSteps.$inferInsert>,
  ): Promise<boolean> {
    const rows = await tx
      .insert(inngestSteps)
      .values({ runId: run.id, hashedId, ...info, status, createdAt: this.now(), ...extra })
      .onConflictDoNothing()
      .returning({ hashedId: inngestSteps.hashedId });
    return rows.length > 0;
  }

  private async failStep(
    tx: Tx,
    run: RunRow,
    hashedId: string,
    info: StepInfo,
    error: SerializedError,
    now: Date,
    attempt: (outcome: string, error?: SerializedError) => Promise<void>,
  ) {
    await attempt("step-failed", error);
    await completeStep(tx, run, hashedId, { error }, info, now);
  }

  private async scheduleTimer(tx: Tx, run: RunRow, hashedId: string, runAt: Date) {
    await enqueueJob(tx, { runId: run.id, partition: run.partition, functionId: run.functionId, kind: "timer", stepId: hashedId, runAt, now: this.now() });
  }

  /** A step's result is in: pending (unleased) requests to run it again are obsolete. */
  private async dropStepJobs(tx: Tx, runId: string, hashedId: string) {
    await tx
      .delete(inngestJobs)
      .where(and(eq(inngestJobs.runId, runId), eq(inngestJobs.kind, "execute"), eq(inngestJobs.stepId, hashedId), sql`${inngestJobs.leaseToken} is null`));
  }

  /** A sleep ended, or a wait / invoke timed out. */
  private async fireTimer(job: Job): Promise<void> {
    await transaction(this.db, async (tx) => {
      const { run, released } = await lockRunAndReleaseJob(tx, job);
      if (!released || !run || isTerminal(run.status)) return;
      const [step] = await tx
        .select()
        .from(inngestSteps)
        .where(and(eq(inngestSteps.runId, run.id), eq(inngestSteps.hashedId, job.stepId)))
        .for("update");
      if (!step) return;
      const now = this.now();
      if (step.status === "sleeping" || step.status === "waiting") {
        await completeStep(tx, run, step.hashedId, { data: null }, step, now);
      } else if (step.status === "invoking") {
        await completeStep(
          tx,
          run,
          step.hashedId,
          { error: { name: "InngestInvokeTimeoutError", message: `Timed out waiting for invoked function run ${step.invokeRunId} to complete.` } },
          step,
          now,
        );
      }
    });
  }
}
