import { applyResponse, dropJob, releaseForLater, type ServeResponse } from "./apply";
import type { CheckpointWriter } from "./checkpoint";
import type { CompletionWriter } from "./complete";
import { newLeaseToken, renewLease } from "./claim";
import type { Continuation, Job, OutgoingOp, RunnerContext } from "./context";
import { loadSnapshot } from "./snapshot";
import { DISCOVERY_STEP, isTerminal, serializeError, type ContinuationLease } from "./state";
import { fireTimer } from "./timers";
import { EMBEDDED_TOKEN_HEADER, embeddedRunnerToken, registerCheckpointTarget, type CheckpointBody } from "./transport";

/** The serve URL the runner reports on sync and calls; never resolved (the handler is called in-process). */
export const SERVE_URL = "http://app.embedded.invalid/api/inngest";

/** Requests of one run executed back to back before the runner goes back to the queue (fairness). */
const MAX_CHAINED_REQUESTS = 50;

export type ExecutorContext = RunnerContext & {
  /** The app's serve handler as a fetch function. */
  handler: (request: Request) => Promise<Response>;
  /** Let the SDK run several steps per request, reporting each through a checkpoint (the SDK's default). */
  checkpointing: boolean;
  checkpoints: CheckpointWriter;
  completions: CompletionWriter;
  /** Whether a request should end at its next step boundary: the runner stops, or drain's budget is spent. */
  shouldYield: () => boolean;
  /** Counts a unit of work (a request, a timer, a checkpointed step) for drain's budget. */
  countWork: () => void;
  /** The job the execution `slot` works on now, for stop() to release (null when done). */
  setRunning: (slot: symbol, job: Job | null) => void;
};

/**
 * Executes a job, then the discovery request its result queued for the same run when this runner could lease it in
 * the same transaction (a run's requests follow each other without a claim in between), up to a bound.
 */
export async function executeJob(executor: ExecutorContext, job: Job, mayChain: () => boolean): Promise<void> {
  const slot = Symbol(job.runId);
  let next: Job | null = job;
  try {
    for (let chained = 0; next; chained++) {
      executor.setRunning(slot, next);
      next = await executeOne(executor, next, chained < MAX_CHAINED_REQUESTS && mayChain());
    }
  } finally {
    executor.setRunning(slot, null);
  }
}

/** The queue item id the SDK sends back with its checkpoints (jobs of one claim share a lease token). */
function checkpointId(job: Job): string {
  return `${job.id}.${job.leaseToken}`;
}

/** What happened to the checkpoints of one request. */
type CheckpointState = { steps: number; yielded: boolean };

/**
 * Lets the SDK report the steps it runs in this request: each report is applied at once (see checkpoint.ts);
 * after one, the request is told to stop (409) when the runner wants it to yield.
 */
function acceptCheckpoints(executor: ExecutorContext, job: Job, state: CheckpointState): () => void {
  return registerCheckpointTarget(checkpointId(job), async (body: CheckpointBody) => {
    if (body.run_id !== job.runId || state.yielded) return { status: 409, body: { error: "stale" } };
    const outcome = await executor.checkpoints.write(job, (body.steps ?? []) as OutgoingOp[]);
    if (outcome === "stale") return { status: 409, body: { error: "The request's lease was lost or its run ended." } };
    state.steps++;
    executor.countWork();
    if (executor.shouldYield()) {
      state.yielded = true;
      return { status: 409, body: { error: "yield" } };
    }
    return { status: 200, body: {} };
  });
}

async function callHandler(executor: ExecutorContext, url: string, body: unknown): Promise<ServeResponse> {
  try {
    const res = await executor.handler(
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
    return { status: res.status, headers: res.headers, body: parsed };
  } catch (error) {
    return { status: 599, headers: new Headers(), body: serializeError(error) };
  }
}

/** One request (or timer). Returns the run's next discovery job when this runner leased it to chain it. */
async function executeOne(executor: ExecutorContext, job: Job, mayChain: boolean): Promise<Job | null> {
  if (job.kind === "timer") {
    const lease = mayChain ? continuationLease(executor) : undefined;
    const nextJobId = await fireTimer(executor, job, lease);
    executor.countWork();
    return nextJobId !== null && lease ? discoveryJob(job, nextJobId, lease) : null;
  }
  const fn = executor.registry().get(job.functionId);
  const snapshot = job.snapshot ?? (await loadSnapshot(executor.db, job));
  const stepDone = job.stepId !== DISCOVERY_STEP && snapshot?.memo[job.stepId] !== undefined;
  if (!fn || !snapshot || isTerminal(snapshot.run.status) || stepDone) {
    await dropJob(executor, job, fn, stepDone);
    return null;
  }

  const startedAt = Date.now();
  const { run } = snapshot;
  const disableImmediateExecution = job.stepId !== DISCOVERY_STEP || snapshot.otherStepJobs;
  // The SDK checkpoints only in discovery requests that may execute a step at once, and not on retries.
  const checkpoints: CheckpointState | null = executor.checkpointing && !disableImmediateExecution && job.attempt === 0 ? { steps: 0, yielded: false } : null;
  const body = {
    version: -1,
    event: run.event,
    events: run.events ?? [run.event],
    steps: snapshot.memo,
    ctx: {
      run_id: run.id,
      attempt: job.attempt,
      max_attempts: fn.maxAttempts,
      disable_immediate_execution: disableImmediateExecution,
      use_api: false,
      stack: { stack: run.stack, current: Math.max(0, run.stack.length - 1) },
      ...(checkpoints ? { fn_id: fn.id, qi_id: checkpointId(job) } : {}),
    },
  };
  const url = `${SERVE_URL}?fnId=${encodeURIComponent(fn.id)}&stepId=${encodeURIComponent(job.stepId)}`;
  const heartbeat = setInterval(() => void renewLease(executor, job), Math.max(1000, Math.floor(executor.leaseMs / 3)));
  const stopAccepting = checkpoints ? acceptCheckpoints(executor, job, checkpoints) : () => {};
  let response: ServeResponse;
  try {
    response = await callHandler(executor, url, body);
  } finally {
    stopAccepting();
    clearInterval(heartbeat);
  }
  executor.countWork();
  if (checkpoints?.yielded) {
    await releaseForLater(executor, job);
    return null;
  }

  if (await executor.completions.tryComplete(job, snapshot, response, startedAt)) return null;

  // The next discovery may be leased to this runner only if this job was the run's discovery (so no other
  // discovery of the run can be running) and no concurrency key has to be shared fairly.
  const continuation: Continuation = {
    lease: mayChain && job.stepId === DISCOVERY_STEP && run.concurrency.length === 0 ? continuationLease(executor) : undefined,
    jobId: null,
  };
  await applyResponse(executor, job, fn, response, startedAt, continuation, run.stack.length);
  if (continuation.jobId === null || !continuation.lease) return null;
  return discoveryJob(job, continuation.jobId, continuation.lease);
}

/** A lease for the run's next discovery job, put on it by the transaction that creates it (no claim needed). */
function continuationLease(executor: ExecutorContext): ContinuationLease {
  return { token: newLeaseToken(), owner: executor.id, expiresAt: new Date(executor.now().getTime() + executor.leaseMs) };
}

function discoveryJob(job: Job, id: number, lease: ContinuationLease): Job {
  return { id, runId: job.runId, functionId: job.functionId, kind: "execute", stepId: DISCOVERY_STEP, attempt: 0, leaseToken: lease.token };
}
