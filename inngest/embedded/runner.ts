import { newId } from "./ids";
import type { Db } from "@/db";
import { CheckpointWriter } from "./checkpoint";
import { claimJobs, releaseLeases } from "./claim";
import { CompletionWriter } from "./complete";
import type { Job, Logger } from "./context";
import { executeJob, SERVE_URL, type ExecutorContext } from "./execute";
import { compileFunctions, type FunctionConfig, type FunctionRegistry } from "./registry";
import { prune } from "./retention";
import { nextDueAt, recordRegistration, startDueRuns } from "./scheduler";
import { DEFAULT_PARTITION, EMBEDDED_TOKEN_HEADER, embeddedRunnerToken, registerLocalRunner, unregisterLocalRunner } from "./transport";
import { listenForWork } from "./wake";
import { cpuStageOfFunction, inCpuStage } from "@/server/observability/stage-cpu";

export { retryDelayMs } from "./retries";
export { EVENT_RETENTION_MS, RUN_RETENTION_MS } from "./retention";

export type EmbeddedRunnerOptions = {
  db: Db;
  /** The app's serve handler as a fetch function (inngest/serve.ts); called in-process, no port. */
  handler: (request: Request) => Promise<Response>;
  /** Clock for every scheduling decision (tests inject one). */
  now?: () => Date;
  partition?: string;
  /** Background work (the server): LISTEN, timers for due work, polling as a fallback. Tests leave it off and call drain(). */
  autoPoll?: boolean;
  /** Polling interval when nothing is known to be due (4× longer while LISTEN works). */
  pollIntervalMs?: number;
  /** Requests executed at once by this runner. */
  concurrency?: number;
  /**
   * Most requests of one function executing at once in this runner (default: `concurrency`, no limit of its own). Below
   * `concurrency`, a burst of one function (a campaign's analysis batches) leaves workers to the others: the
   * dispatcher, webhook deliveries, a meeting's reconciliation. Not a concurrency limit of the function (that is
   * its `concurrency` option, counted across runners): only how this runner shares its workers.
   */
  functionShare?: number;
  /** A claimed job is re-claimable by another runner once its lease expires (runner crash); renewed while running. */
  leaseMs?: number;
  /** 0..1; jitter added to retry backoff. */
  random?: () => number;
  logger?: Logger;
  /** Several steps per request through the SDK's checkpoints (default); false: one step per request. */
  checkpointing?: boolean;
  /**
   * How often background work deletes old runs, events and expired event IDs and idempotency keys (default hourly,
   * from the first poll). 0: never. Events and keys are pruned by this runner's clock whatever their partition, so
   * tests whose polling runner runs on the real clock beside runners on a simulated past clock (one database) set 0.
   */
  pruneIntervalMs?: number;
};

const PRUNE_INTERVAL_MS = 60 * 60 * 1000;
/** Cron schedules and batch timeouts are looked at no more often than this while the runner is busy. */
const SCHEDULE_CHECK_MS = 250;
/** A job due now that could not be claimed (its concurrency key is full): look again after this at the latest. */
const BLOCKED_RETRY_MS = 100;

/**
 * The embedded Inngest runner: an in-process stand-in for the Inngest server. See inngest/embedded/index.ts and
 * docs/background-jobs.md. This class holds the lifecycle (start, stop, drain, background pumping); the work is
 * done by claim.ts (leases), execute.ts (requests, checkpoints), apply.ts + ops/ (responses), intake.ts (events),
 * scheduler.ts (crons, batches, due times) and timers.ts.
 */
export class EmbeddedRunner {
  readonly id = `runner-${newId().toLowerCase()}`;
  readonly partition: string;
  private registry: FunctionRegistry = new Map();
  private readonly executor: ExecutorContext;
  private readonly concurrency: number;
  private readonly functionShare: number;
  /** Requests executing now, per function (for the function share). */
  private readonly executingByFunction = new Map<string, number>();
  private readonly pollIntervalMs: number;
  private readonly autoPoll: boolean;
  private readonly logger: Logger;
  private readonly inflight = new Set<Promise<void>>();
  /** The job each execution in flight works on now (what stop() releases). */
  private readonly running = new Map<symbol, Job>();
  private started = false;
  private stopping = false;
  private pumping = false;
  private pumpAgain = false;
  private wakeTimer: NodeJS.Timeout | undefined;
  private unlisten: (() => Promise<void>) | null = null;
  private lastPruneAt = 0;
  private readonly pruneIntervalMs: number;
  private lastScheduleCheckAt = 0;
  /** drain(): units of work done and allowed before requests yield. */
  private budget: { used: number; limit: number } | null = null;

  constructor(options: EmbeddedRunnerOptions) {
    const clock = options.now ?? (() => new Date());
    this.partition = options.partition ?? DEFAULT_PARTITION;
    this.concurrency = options.concurrency ?? 8;
    this.functionShare = Math.max(1, Math.min(options.functionShare ?? this.concurrency, this.concurrency));
    this.pollIntervalMs = options.pollIntervalMs ?? 500;
    this.pruneIntervalMs = options.pruneIntervalMs ?? PRUNE_INTERVAL_MS;
    this.autoPoll = options.autoPoll ?? false;
    this.logger = options.logger ?? console;
    const context: Omit<ExecutorContext, "checkpoints" | "completions"> = {
      id: this.id,
      db: options.db,
      partition: this.partition,
      leaseMs: options.leaseMs ?? 60_000,
      now: clock,
      registry: () => this.registry,
      random: options.random ?? Math.random,
      logger: this.logger,
      handler: options.handler,
      checkpointing: options.checkpointing ?? true,
      shouldYield: () => this.stopping || (this.budget !== null && this.budget.used > this.budget.limit),
      countWork: () => {
        if (this.budget) this.budget.used++;
      },
      setRunning: (slot, job) => {
        if (job) this.running.set(slot, job);
        else this.running.delete(slot);
      },
    };
    this.executor = { ...context, checkpoints: new CheckpointWriter(context), completions: new CompletionWriter(context) };
  }

  now(): Date {
    return this.executor.now();
  }

  functions(): FunctionRegistry {
    return this.registry;
  }

  /**
   * Syncs the functions over the SDK's in-band sync (PUT), refuses configurations it cannot honour
   * (UnsupportedConfigurationError), records them and their cron schedules, and starts background work if asked.
   */
  async start(): Promise<void> {
    if (this.started) return;
    const response = await this.executor.handler(
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
    await recordRegistration(this.executor);
    this.started = true;
    this.stopping = false;
    registerLocalRunner({
      id: this.id,
      db: this.executor.db,
      partition: this.partition,
      now: () => this.now(),
      registry: () => this.registry,
      poke: () => this.poke(),
    });
    if (this.autoPoll) {
      this.unlisten = await listenForWork(this.executor.db, this.partition, () => this.poke(), this.logger);
      this.poke();
    }
  }

  /**
   * Stops claiming, lets the requests in flight finish — each stops at its next step boundary, its finished steps
   * kept — and leaves the process registry. With `timeoutMs`, requests still running then have their leases
   * released, so another runner takes them over at once (their late results are dropped). Pending work stays in the
   * database. Returns how many leases it released.
   */
  async stop(options: { timeoutMs?: number } = {}): Promise<{ released: number }> {
    this.stopping = true;
    clearTimeout(this.wakeTimer);
    this.wakeTimer = undefined;
    const unlisten = this.unlisten;
    this.unlisten = null;
    await unlisten?.().catch(() => {});
    const settled = (async () => {
      while (this.inflight.size) await Promise.allSettled([...this.inflight]);
    })();
    let released = 0;
    if (options.timeoutMs === undefined) await settled;
    else {
      let timer: NodeJS.Timeout | undefined;
      const timedOut = await Promise.race([
        settled.then(() => false),
        new Promise<boolean>((resolve) => {
          timer = setTimeout(() => resolve(true), options.timeoutMs);
        }),
      ]);
      clearTimeout(timer);
      if (timedOut) released = await releaseLeases(this.executor, [...this.running.values()]);
    }
    unregisterLocalRunner(this.id);
    this.started = false;
    return { released };
  }

  /** Something may be runnable now (an event arrived, a job was queued): claim without waiting. */
  poke(): void {
    if (!this.autoPoll || this.stopping || !this.started) return;
    void inCpuStage("runner", () => this.pump());
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
        if (this.stopping) return;
        if (this.pruneIntervalMs > 0 && Date.now() - this.lastPruneAt > this.pruneIntervalMs) {
          this.lastPruneAt = Date.now();
          await this.prune().catch((error) => this.logger.warn("[inngest-embedded] pruning old runs failed", error));
        }
        if (Date.now() - this.lastScheduleCheckAt >= SCHEDULE_CHECK_MS) {
          this.lastScheduleCheckAt = Date.now();
          await startDueRuns(this.executor);
        }
        const capacity = this.concurrency - this.inflight.size;
        if (capacity <= 0) return;
        const { jobs, claimed } = await this.claim(capacity);
        for (const job of jobs) void this.track(job);
        if (claimed === capacity) this.pumpAgain = true;
      } while (this.pumpAgain);
      await this.scheduleWake();
    } catch (error) {
      this.logger.error("[inngest-embedded] polling failed", error);
      this.armWake(this.pollIntervalMs);
    } finally {
      this.pumping = false;
    }
  }

  /** Sleeps until the next due job, cron, batch timeout or lease expiry, or the polling interval at the longest. */
  private async scheduleWake(): Promise<void> {
    if (this.stopping) return;
    const idle = this.unlisten ? this.pollIntervalMs * 4 : this.pollIntervalMs;
    // Functions at their share are woken by their own requests ending, not by their due jobs.
    const due = this.inflight.size < this.concurrency ? await nextDueAt(this.executor, { leases: true, skipFunctions: this.functionsAtShare() }) : null;
    const untilDue = due ? due.getTime() - this.now().getTime() : Infinity;
    this.armWake(Math.min(idle, untilDue <= 0 ? BLOCKED_RETRY_MS : untilDue));
  }

  private armWake(delayMs: number): void {
    clearTimeout(this.wakeTimer);
    if (this.stopping) return;
    this.wakeTimer = setTimeout(() => {
      this.lastScheduleCheckAt = 0;
      this.poke();
    }, delayMs);
    this.wakeTimer.unref?.();
  }

  /** Functions with `functionShare` requests executing: the next claim skips them. */
  private functionsAtShare(): ReadonlySet<string> | undefined {
    if (this.functionShare >= this.concurrency) return undefined;
    const full = new Set<string>();
    for (const [functionId, executing] of this.executingByFunction) if (executing >= this.functionShare) full.add(functionId);
    return full.size ? full : undefined;
  }

  /**
   * Leases up to `capacity` jobs, none of a function at its share. One claim takes jobs in due order whatever their
   * function, so it can take more of a function than its share has room for: those leases are given back at once
   * (for this runner's next claim, which skips that function, or for another runner). `claimed` counts them too.
   */
  private async claim(capacity: number): Promise<{ jobs: Job[]; claimed: number }> {
    const skipFunctions = this.functionsAtShare();
    const claimed = await claimJobs(this.executor, capacity, { skipFunctions });
    if (this.functionShare >= this.concurrency) return { jobs: claimed, claimed: claimed.length };
    const executing = new Map(this.executingByFunction);
    const jobs: Job[] = [];
    const surplus: Job[] = [];
    for (const job of claimed) {
      const count = executing.get(job.functionId) ?? 0;
      if (count >= this.functionShare) surplus.push(job);
      else {
        executing.set(job.functionId, count + 1);
        jobs.push(job);
      }
    }
    if (surplus.length) await releaseLeases(this.executor, surplus);
    return { jobs, claimed: claimed.length };
  }

  private track(job: Job): Promise<void> {
    this.executingByFunction.set(job.functionId, (this.executingByFunction.get(job.functionId) ?? 0) + 1);
    const promise: Promise<void> = inCpuStage(cpuStageOfFunction(job.functionId), () => executeJob(this.executor, job, () => !this.executor.shouldYield()))
      .catch((error) => this.logger.error(`[inngest-embedded] job ${job.id} (run ${job.runId}) failed`, error))
      .finally(() => {
        const left = (this.executingByFunction.get(job.functionId) ?? 1) - 1;
        if (left > 0) this.executingByFunction.set(job.functionId, left);
        else this.executingByFunction.delete(job.functionId);
        this.inflight.delete(promise);
        this.poke();
      });
    this.inflight.add(promise);
    return promise;
  }

  /**
   * Runs everything runnable at the current clock until nothing is left (tests, benchmarks): up to `concurrency`
   * requests at once, claiming again as they finish. Returns the units of work done: requests, timers and steps
   * reported through checkpoints. Past `maxJobs` units, requests stop at their next step and drain() throws.
   */
  async drain(options: { maxJobs?: number } = {}): Promise<number> {
    const maxJobs = options.maxJobs ?? 10_000;
    const budget = { used: 0, limit: maxJobs };
    this.budget = budget;
    try {
      for (;;) {
        if (this.stopping) break;
        await startDueRuns(this.executor);
        const runningBefore = this.inflight.size;
        const capacity = this.concurrency - runningBefore;
        const { jobs } = await this.claim(capacity);
        for (const job of jobs) void this.track(job);
        // Done only if nothing was running while we claimed: a request that ended meanwhile may have made
        // work claimable (freed a concurrency key, queued its run's next request).
        if (jobs.length === 0 && runningBefore === 0) break;
        // Claim again as soon as a slot is free, as the server's pump does (requests that end while a claim is in
        // flight are claimed for together); when the claim found less than it asked for, once a request ends.
        if (this.inflight.size > 0 && (jobs.length < capacity || this.inflight.size >= this.concurrency)) await Promise.race([...this.inflight]);
        if (budget.used > maxJobs) {
          while (this.inflight.size) await Promise.allSettled([...this.inflight]);
          throw new Error(`drain() executed more than ${maxJobs} jobs: a function loops?`);
        }
      }
      return budget.used;
    } finally {
      this.budget = null;
    }
  }

  /**
   * Deletes ended runs of this partition older than RUN_RETENTION_MS (with their steps and attempts), events older
   * than EVENT_RETENTION_MS and expired idempotency keys. The polling runner calls it hourly; returns what it deleted.
   */
  prune(): Promise<{ runs: number; events: number }> {
    return prune(this.executor);
  }

  /** The earliest time something of this runner becomes runnable (job, cron or batch timeout), or null. */
  nextWakeAt(): Promise<Date | null> {
    return nextDueAt(this.executor);
  }
}
