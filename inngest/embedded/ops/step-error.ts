import { sql } from "drizzle-orm";
import { inngestSteps } from "@/db/schema/jobs";
import { recordRunnerSteps } from "@/server/observability/metrics";
import type { OpHandler } from "../context";
import { retryAfterMs, retryDelayMs } from "../retries";
import { completeStep, enqueueJob, serializeError } from "../state";
import { stepInfo } from "./shared";

/** A step threw: it is retried with backoff (or the SDK's retry-after), or fails once its attempts are spent. */
export const stepError: OpHandler = async (ctx, op) => {
  const { tx, run, job, fn, engine } = ctx;
  const error = serializeError(op.error ?? { name: "Error", message: "step errored" });
  const info = stepInfo(op, "StepRun");
  const nextAttempt = job.attempt + 1;
  recordRunnerSteps(job.functionId, "error", [op]);
  if (nextAttempt >= fn.maxAttempts) {
    ctx.attempt("step-failed", { httpStatus: 206, error, stepId: op.id });
    await completeStep(tx, run, op.id, { error }, info, engine.now);
    return false;
  }
  ctx.attempt("step-error", { httpStatus: 206, error, stepId: op.id });
  await tx
    .insert(inngestSteps)
    .values({ runId: run.id, hashedId: op.id, ...info, status: "planned", error, attempts: nextAttempt, createdAt: engine.now })
    .onConflictDoUpdate({
      target: [inngestSteps.runId, inngestSteps.hashedId],
      set: { error, attempts: nextAttempt },
      setWhere: sql`${inngestSteps.status} not in ('completed', 'failed')`,
    });
  const delay = retryAfterMs(ctx.headers.get("retry-after"), engine.now) ?? retryDelayMs(nextAttempt, ctx.runner.random);
  await enqueueJob(tx, {
    runId: run.id,
    partition: run.partition,
    functionId: run.functionId,
    kind: "execute",
    stepId: op.id,
    attempt: nextAttempt,
    runAt: new Date(engine.now.getTime() + delay),
    concurrency: run.concurrency,
    now: engine.now,
  });
  return false;
};
