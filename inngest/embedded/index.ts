/**
 * # The embedded Inngest runner
 *
 * An in-process stand-in for the Inngest server, used when no Inngest settings are present (see
 * inngest/client.ts). It drives the very same function objects through the app's own `serve()` handler
 * (inngest/serve.ts), speaking the SDK's HTTP protocol in-process, and keeps all run state in the app's Postgres
 * (db/schema/jobs.ts), so a restart loses nothing and never repeats a completed step.
 *
 * ## Interfaces to build on
 * 1. Client: `import { inngest } from "@/inngest/client"` (app id `outbound-calling`). `inngest.send(...)` works
 *    in every mode; in embedded mode it is answered in-process and the runs it starts exist when it resolves.
 * 2. Events: `inngest/events.ts` holds one `eventType()` per event name (zod schema). Add yours there.
 * 3. Functions: one function per file in `inngest/functions/`, created with `inngest.createFunction`, appended to
 *    the `functions` array of `inngest/functions/index.ts`. Steps call services (no SQL in functions).
 * 4. Server: `startEmbeddedServices()` (server/runtime/start-embedded-services.ts) starts one polling runner per
 *    process; `instrumentation.ts` calls it under Next.js. `runner.stop({ timeoutMs })` on SIGTERM.
 * 5. Tests: `startTestInngest({ db })` from tests/helpers/inngest.ts gives a runner over the test database with an
 *    injected clock: `drain()` runs everything runnable now, `advance(ms)` moves the clock (stopping at every due
 *    time on the way) and runs what became due, `stop()`. Each helper gets its own partition, so parallel test
 *    files never run each other's runs.
 *
 * ## Supported
 * step.run (memoized), parallel steps, retries with backoff (function `retries`, default 3), NonRetriableError,
 * RetryAfterError, step.sleep / sleepUntil, step.waitForEvent (match / if, timeout), step.sendEvent and
 * inngest.send (any number of events per call; event `id` dedupe for 24 h), step.invoke (with timeout), onFailure,
 * cancelOn (match / if, timeout), cron triggers (`TZ=Zone` prefix), concurrency (limit, key, scope; counts executing
 * requests like Inngest), idempotency (key expression, 24 h), batchEvents (maxSize, timeout, key, if), and several
 * steps per request through the SDK's checkpoints. Expressions: see ./expressions.ts.
 *
 * Refused loudly: throttle, rateLimit, debounce, priority, singleton, timeouts, cron jitter and batchEvents combined
 * with idempotency or cancelOn make `start()` throw UnsupportedConfigurationError naming the function and the
 * option; waitForSignal, AI / gateway ops (step.ai.infer, step.fetch), defer and realtime fail the run with a
 * message naming the function and op.
 *
 * Multiple runners (the app and `npm run seed`, or several instances) may share a database: jobs are claimed with
 * `FOR UPDATE SKIP LOCKED` and leases (renewed while a request runs; an expired or released lease is claimed again,
 * so a step interrupted by a crash runs again — completed steps never do). How it works, module by module:
 * docs/background-jobs.md.
 */
import type { InngestFunction } from "inngest";
import type { Db } from "@/db";
import { inngest as appClient } from "../client";
import { functions as appFunctions } from "../functions";
import { createInngestHandler } from "../serve";
import { EmbeddedRunner, type EmbeddedRunnerOptions } from "./runner";

export { EmbeddedRunner, retryDelayMs, type EmbeddedRunnerOptions } from "./runner";
export { UnsupportedConfigurationError, compileFunctions, type CompiledFunction, type FunctionConfig } from "./registry";
export { ExpressionError } from "./expressions";
export { ingestEvents, embeddedFetch, EMBEDDED_BASE_URL, EMBEDDED_TOKEN_HEADER, DEFAULT_PARTITION } from "./transport";
export type { EventPayload } from "./intake";

export type CreateRunnerOptions = Omit<EmbeddedRunnerOptions, "handler" | "db"> & {
  db: Db;
  /** Defaults to the app's functions (inngest/functions). */
  functions?: readonly InngestFunction.Any[];
};

/** A runner over the app's serve handler (embedded mode) for the given functions. Call `start()` next. */
export function createEmbeddedRunner(options: CreateRunnerOptions): EmbeddedRunner {
  const { functions = appFunctions, ...rest } = options;
  const handler = createInngestHandler({ client: appClient, functions, mode: "embedded" });
  return new EmbeddedRunner({ ...rest, handler });
}
