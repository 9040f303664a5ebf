import type { Db, Tx } from "@/db";
import type { SerializedError } from "@/db/schema/jobs";
import type { CompiledFunction, FunctionRegistry } from "./registry";
import type { ContinuationLease, EngineContext, RunRow } from "./state";

export type Logger = Pick<Console, "info" | "warn" | "error">;

/** What every part of the runner needs from the runner instance. */
export type RunnerContext = {
  id: string;
  db: Db;
  partition: string;
  /** A claimed job is re-claimable by another runner once its lease expires; renewed while it runs. */
  leaseMs: number;
  now: () => Date;
  registry: () => FunctionRegistry;
  /** 0..1; jitter added to retry backoff. */
  random: () => number;
  logger: Logger;
};

export function engineContext(runner: RunnerContext): EngineContext {
  return { now: runner.now(), partition: runner.partition, registry: runner.registry() };
}

/** A leased row of inngest_jobs. */
export type Job = {
  id: number;
  runId: string;
  functionId: string;
  kind: "execute" | "timer";
  stepId: string;
  attempt: number;
  leaseToken: string;
  /** The run as it was when the job was claimed (read by the claiming statement); loaded before the request otherwise. */
  snapshot?: RunSnapshot;
};

/** What a request needs of its run: the run, its memoized step results and whether other step requests are pending. */
export type RunSnapshot = {
  run: Pick<RunRow, "id" | "partition" | "functionId" | "status" | "event" | "events" | "stack" | "concurrency" | "parentRunId">;
  memo: Record<string, { type: "data"; data: unknown } | { type: "error"; error: unknown }>;
  otherStepJobs: boolean;
};

/** One op of a 206 response (or of a checkpoint), as the SDK sends it. */
export type OutgoingOp = {
  id: string;
  op: string;
  name?: string;
  displayName?: string;
  userland?: { id?: string };
  opts?: Record<string, unknown>;
  data?: unknown;
  error?: unknown;
  timing?: { a?: number; b?: number };
};

/** The next discovery request of the run, leased to this runner by the transaction that applied a result. */
export type Continuation = { lease: ContinuationLease | undefined; jobId: number | null };

export type AttemptDetails = { httpStatus?: number | null; error?: SerializedError | null; stepId?: string };

/** Everything an op handler works with while a response is applied (in one transaction, the run locked). */
export type OpContext = {
  tx: Tx;
  engine: EngineContext;
  runner: RunnerContext;
  job: Job;
  fn: CompiledFunction;
  run: RunRow;
  headers: Headers;
  continuation: Continuation;
  /** Records a row of inngest_attempts (written with the others at the end of the transaction). */
  attempt: (outcome: string, details?: AttemptDetails) => void;
};

/** Applies one op; returns true when the ops after it must be ignored (the run ended). */
export type OpHandler = (ctx: OpContext, op: OutgoingOp) => Promise<boolean>;
