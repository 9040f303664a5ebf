import { sql } from "drizzle-orm";
import client from "prom-client";
import type { Db } from "@/db";
import type { CallQuality } from "@/db/schema/call-quality";
import { processSingleton, processSingletonCreations } from "@/server/runtime/process-singleton";
import { stageCpuSeconds } from "./stage-cpu";

/**
 * Prometheus metrics (prom-client), served at `GET /metrics` (server/http/ops-routes.ts).
 *
 * Counters and histograms are recorded where things happen (record* below: the HTTP server, the call engine, webhook
 * delivery, the Inngest serve handler, the API rate limiter); the gauges of work waiting (calls in each open state,
 * the background-job queue) are read from the database when scraped, so every instance reports the shared truth.
 * Counters are per instance: sum them across instances in queries.
 *
 * One registry per process (server/runtime/process-singleton.ts): Next.js loads this module once per bundle, and the
 * runner (a Next bundle) and the HTTP server (not one) must count into the same series.
 */

const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Conversational latency: what a person notices starts around half a second. */
const LATENCY_BUCKETS = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.8, 1, 1.25, 1.5, 2, 3, 5, 8];

function createMetrics() {
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry });
  return {
    registry,
    httpRequestDuration: new client.Histogram({
      name: "http_request_duration_seconds",
      help: "HTTP requests by method, route template and status.",
      labelNames: ["method", "route", "status"] as const,
      buckets: DURATION_BUCKETS,
      registers: [registry],
    }),
    callsInState: new client.Gauge({
      name: "calls_in_state",
      help: "Calls waiting or in progress, by state (read from the database at scrape time; all instances).",
      labelNames: ["state"] as const,
      registers: [registry],
    }),
    callsFinished: new client.Counter({
      name: "calls_finished_total",
      help: "Calls that reached a final result on this instance, by result.",
      labelNames: ["result"] as const,
      registers: [registry],
    }),
    dialLag: new client.Histogram({
      name: "call_dial_lag_seconds",
      help: "Delay between a call's due time and its dialing.",
      buckets: [0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300, 1800],
      registers: [registry],
    }),
    creditsSpent: new client.Counter({
      name: "credits_spent_total",
      help: "Credits charged for calls finished on this instance.",
      registers: [registry],
    }),
    webhookDeliveries: new client.Counter({
      name: "webhook_deliveries_total",
      help: "Webhook delivery attempts by outcome (succeeded, retry, failed, cancelled) and trigger (automatic, replay, test).",
      labelNames: ["outcome", "trigger"] as const,
      registers: [registry],
    }),
    webhookLatency: new client.Histogram({
      name: "webhook_delivery_duration_seconds",
      help: "Time the receiver took to answer a webhook delivery attempt, by outcome.",
      labelNames: ["outcome"] as const,
      buckets: DURATION_BUCKETS,
      registers: [registry],
    }),
    dispatchAnalysisBacklog: new client.Gauge({
      name: "dispatch_analysis_backlog",
      help: "Ended calls awaiting analysis as this instance's dispatcher last measured them before a claim (stops counting at CALL_DISPATCH_MAX_ANALYSIS_BACKLOG + 1).",
      registers: [registry],
    }),
    dispatchBackpressure: new client.Counter({
      name: "dispatch_backpressure_claims_total",
      help: "Dispatcher claims on this instance that the analysis backlog held back (held: no new call claimed; lowered: fewer due calls examined than the claim could take).",
      labelNames: ["effect"] as const,
      registers: [registry],
    }),
    runnerQueueDepth: new client.Gauge({
      name: "runner_queue_depth",
      help: "Background-job requests of the embedded runner: due and waiting for a runner, or running (database, all instances).",
      labelNames: ["state"] as const,
      registers: [registry],
    }),
    runnerQueueLag: new client.Gauge({
      name: "runner_queue_lag_seconds",
      help: "Age of the oldest due background-job request no runner has taken yet (0 when none waits).",
      registers: [registry],
    }),
    runnerRequestDuration: new client.Histogram({
      name: "runner_request_duration_seconds",
      help: "Background function requests (one or more steps each, SDK checkpoints) executed by this instance's serve handler, by function and outcome.",
      labelNames: ["function", "outcome"] as const,
      buckets: DURATION_BUCKETS,
      registers: [registry],
    }),
    runnerStepDuration: new client.Histogram({
      name: "runner_step_duration_seconds",
      help: "Steps (step.run) the embedded runner recorded, by function and outcome, as the SDK timed them.",
      labelNames: ["function", "outcome"] as const,
      buckets: DURATION_BUCKETS,
      registers: [registry],
    }),
    callResponseLatency: new client.Histogram({
      name: "call_response_latency_seconds",
      help: "Per turn: end of the contact's speech to the agent's first audio frame sent to the carrier, by voice engine (docs/call-quality.md).",
      labelNames: ["engine"] as const,
      buckets: LATENCY_BUCKETS,
      registers: [registry],
    }),
    callGreetingDelay: new client.Histogram({
      name: "call_greeting_delay_seconds",
      help: "Media stream start to the agent's first audio frame sent, by voice engine and greeting mode.",
      labelNames: ["engine", "greeting_mode"] as const,
      buckets: LATENCY_BUCKETS,
      registers: [registry],
    }),
    callAnsweredBy: new client.Counter({
      name: "call_answered_by_total",
      help: "Answered calls by who answered (human, machine, fax, ivr, screener, unknown).",
      labelNames: ["engine", "answered_by"] as const,
      registers: [registry],
    }),
    callInterruptions: new client.Counter({
      name: "call_interruptions_total",
      help: "Times a contact spoke over the agent (its audio cleared at the carrier).",
      labelNames: ["engine"] as const,
      registers: [registry],
    }),
    stageCpu: new client.Counter({
      name: "app_stage_cpu_seconds_total",
      help: "CPU of this process by pipeline stage, while STAGE_CPU_ACCOUNTING is on (server/observability/stage-cpu.ts).",
      labelNames: ["stage"] as const,
      registers: [registry],
      collect() {
        this.reset();
        for (const [stage, seconds] of Object.entries(stageCpuSeconds())) if (seconds > 0) this.inc({ stage }, seconds);
      },
    }),
    rateLimitRejections: new client.Counter({
      name: "rate_limit_rejections_total",
      help: "Requests refused with 429, by limit (key: per API key; session: per signed-in person on /api/trpc; address: requests without credentials).",
      labelNames: ["limit"] as const,
      registers: [registry],
    }),
    // Each is made once per process whichever module copy asks first (server/runtime/process-singleton.ts): a value
    // above 1 means a second copy of some state (the assembly test tests/assembly/process-singletons.test.ts checks).
    processSingletonCreations: new client.Gauge({
      name: "app_process_singleton_creations",
      help: "How many times each process-wide singleton was made in this process (1 each; keys in server/runtime/process-singleton.ts).",
      labelNames: ["key"] as const,
      registers: [registry],
      collect() {
        this.reset();
        for (const [key, count] of processSingletonCreations()) this.set({ key }, count);
      },
    }),
  };
}

type Metrics = ReturnType<typeof createMetrics>;

export function getMetrics(): Metrics {
  return processSingleton("metrics", createMetrics);
}

export function recordHttpRequest(params: { method: string; route: string; status: number; seconds: number }): void {
  getMetrics().httpRequestDuration.observe({ method: params.method, route: params.route, status: String(params.status) }, params.seconds);
}

/** A call reached its final result (after commit). */
export function recordCallFinished(params: { resultType: string; credits: number }): void {
  const metrics = getMetrics();
  metrics.callsFinished.inc({ result: params.resultType });
  if (params.credits > 0) metrics.creditsSpent.inc(params.credits);
}

export function recordDialLag(seconds: number): void {
  getMetrics().dialLag.observe(Math.max(0, seconds));
}

export function recordWebhookAttempt(params: { outcome: string; trigger: string; seconds: number }): void {
  const metrics = getMetrics();
  metrics.webhookDeliveries.inc({ outcome: params.outcome, trigger: params.trigger });
  metrics.webhookLatency.observe({ outcome: params.outcome }, params.seconds);
}

/** The dispatcher's admission before a claim (server/services/call-engine/dispatch-admission.ts): what it measured, what it did. */
export function recordDispatchAdmission(params: { backlog: number; effect: "held" | "lowered" | null }): void {
  const metrics = getMetrics();
  metrics.dispatchAnalysisBacklog.set(params.backlog);
  if (params.effect) metrics.dispatchBackpressure.inc({ effect: params.effect });
}

/** One request of the serve handler (it may run several steps, each reported through a checkpoint). */
export function recordRunnerRequest(params: { functionId: string; outcome: string; seconds: number }): void {
  getMetrics().runnerRequestDuration.observe({ function: params.functionId, outcome: params.outcome }, params.seconds);
}

/**
 * Steps the embedded runner applied (a checkpoint or a step result of a 206), timed by the SDK: `timing.b` is the
 * step's duration in nanoseconds. The function id is a registered one (a bounded label set).
 */
export function recordRunnerSteps(functionId: string, outcome: "completed" | "error", ops: ReadonlyArray<{ timing?: { b?: number } }>): void {
  const histogram = getMetrics().runnerStepDuration;
  for (const op of ops) {
    if (typeof op.timing?.b === "number") histogram.observe({ function: functionId, outcome }, Math.max(0, op.timing.b / 1e9));
  }
}

/** A call's quality as it was stored when the call ended (voice-events.ts). */
export function observeCallQuality(quality: CallQuality): void {
  const metrics = getMetrics();
  const engine = quality.source;
  for (const turn of quality.turns) metrics.callResponseLatency.observe({ engine }, turn.responseMs / 1000);
  if (quality.greetingMs !== null) metrics.callGreetingDelay.observe({ engine, greeting_mode: quality.greetingMode }, quality.greetingMs / 1000);
  metrics.callAnsweredBy.inc({ engine, answered_by: quality.answeredBy });
  if (quality.interruptions > 0) metrics.callInterruptions.inc({ engine }, quality.interruptions);
}

export function recordRateLimitRejection(limit: "key" | "session" | "address"): void {
  getMetrics().rateLimitRejections.inc({ limit });
}

const OPEN_CALL_STATES = { Scheduled: "scheduled", Rescheduled: "rescheduled", Calling: "calling", "Processing Analysis": "processing_analysis" } as const;

/** The database gauges are read at most this often, however often the endpoint is scraped. */
const DATABASE_GAUGES_TTL_MS = 5_000;
let gaugesReadAt = 0;
let gaugesReading: Promise<void> | null = null;

async function readDatabaseGauges(db: Db): Promise<void> {
  const metrics = getMetrics();
  // Each count uses a partial index (calls_due_idx, calls_in_flight_idx) or the jobs' due index.
  const [row] = (await db.execute(sql`
    select
      (select count(*) from calls where result_type = 'Scheduled')::int as scheduled,
      (select count(*) from calls where result_type = 'Rescheduled')::int as rescheduled,
      (select count(*) from calls where result_type = 'Calling')::int as calling,
      (select count(*) from calls where result_type = 'Processing Analysis')::int as processing_analysis,
      (select count(*) from inngest_jobs where run_at <= now() and (lease_token is null or lease_expires_at < now()))::int as jobs_due,
      (select count(*) from inngest_jobs where lease_token is not null and lease_expires_at >= now())::int as jobs_running,
      (select coalesce(extract(epoch from now() - min(run_at)), 0) from inngest_jobs
        where run_at <= now() and (lease_token is null or lease_expires_at < now()))::float8 as jobs_lag
  `)) as unknown as Array<Record<string, number>>;
  if (!row) return;
  for (const state of Object.values(OPEN_CALL_STATES)) metrics.callsInState.set({ state }, Number(row[state] ?? 0));
  metrics.runnerQueueDepth.set({ state: "due" }, Number(row.jobs_due ?? 0));
  metrics.runnerQueueDepth.set({ state: "running" }, Number(row.jobs_running ?? 0));
  metrics.runnerQueueLag.set(Math.max(0, Number(row.jobs_lag ?? 0)));
}

/** The exposition text. The database gauges are refreshed first (cached for a few seconds); a failed read keeps the last values. */
export async function renderMetrics(db: Db | null): Promise<{ contentType: string; body: string }> {
  if (db && Date.now() - gaugesReadAt > DATABASE_GAUGES_TTL_MS) {
    gaugesReading ??= readDatabaseGauges(db)
      .then(() => {
        gaugesReadAt = Date.now();
      })
      .catch(() => {})
      .finally(() => {
        gaugesReading = null;
      });
    await gaugesReading;
  }
  const registry = getMetrics().registry;
  return { contentType: registry.contentType, body: await registry.metrics() };
}
