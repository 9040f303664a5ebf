import type { Tx } from "@/db";
import { and, eq, isNull } from "drizzle-orm";
import { inngestAttempts, inngestJobs, inngestRuns } from "@/db/schema/jobs";
import { engineContext, type AttemptDetails, type Continuation, type Job, type OpContext, type OutgoingOp, type RunnerContext } from "./context";
import { applyOps } from "./ops";
import type { CompiledFunction } from "./registry";
import { retryAfterMs, retryDelayMs } from "./retries";
import { finishRun } from "./intake";
import { DISCOVERY_STEP, enqueueDiscovery, enqueueJob, isTerminal, lockRunAndReleaseJob, serializeError, transaction } from "./state";

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
 *
 * `seenSteps`: how many step results the request was given (its snapshot's stack). A discovery request can be given
 * fewer than the run has by then: a step's result that queued the run's next discovery by merging into a pending
 * one (on conflict) may commit after the claim's statement took its snapshot but before it locked that job, and the
 * claim still leases it (READ COMMITTED re-checks the locked row, not the snapshot). Such a request can only re-plan
 * steps that are planned already and queues nothing; the run would wait for ever. So when it queued no discovery
 * and the run has more results than it saw, another discovery is queued, which sees them.
 */
export async function applyResponse(
  runner: RunnerContext,
  job: Job,
  fn: CompiledFunction,
  response: ServeResponse,
  startedAt: number,
  continuation: Continuation,
  seenSteps: number,
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
      if (job.stepId === DISCOVERY_STEP && continuation.jobId === null && run.stack.length > seenSteps) {
        const [current] = await tx.select({ status: inngestRuns.status }).from(inngestRuns).where(eq(inngestRuns.id, run.id));
        if (current && !isTerminal(current.status) && !(await discoveryQueued(tx, run.id))) await enqueueDiscovery(tx, run, engine.now);
      }
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

/** Whether the run has a discovery request pending (not leased): it will see every result committed before it runs. */
async function discoveryQueued(tx: Tx, runId: string): Promise<boolean> {
  const [row] = await tx
    .select({ id: inngestJobs.id })
    .from(inngestJobs)
    .where(and(eq(inngestJobs.runId, runId), eq(inngestJobs.kind, "execute"), eq(inngestJobs.stepId, DISCOVERY_STEP), isNull(inngestJobs.leaseToken)))
    .limit(1);
  return row !== undefined;
}
