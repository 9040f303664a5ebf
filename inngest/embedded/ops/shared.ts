import { inngestSteps, type SerializedError } from "@/db/schema/jobs";
import type { OpContext, OutgoingOp } from "../context";
import { completeStep, DISCOVERY_STEP, enqueueJob, type StepInfo, type StepResult } from "../state";

/** The step's userland id and name as the SDK reports them. */
export function stepInfo(op: OutgoingOp, as?: string): StepInfo {
  return { stepId: op.userland?.id ?? op.name ?? op.id, displayName: op.displayName ?? op.name ?? op.id, op: as ?? op.op };
}

/** Records a step that now waits for something (a timer, an event, an invoked run); false if it was recorded before. */
export async function insertStep(
  ctx: OpContext,
  op: OutgoingOp,
  status: "planned" | "sleeping" | "waiting" | "invoking",
  extra: Partial<typeof inngestSteps.$inferInsert> = {},
  as?: string,
): Promise<boolean> {
  const inserted = await ctx.tx
    .insert(inngestSteps)
    .values({ runId: ctx.run.id, hashedId: op.id, ...stepInfo(op, as), status, createdAt: ctx.engine.now, ...extra })
    .onConflictDoNothing()
    .returning({ hashedId: inngestSteps.hashedId });
  return inserted.length > 0;
}

/**
 * Memoizes a step's result and queues the next discovery request (leased to this runner when it may chain it).
 * A result reported by a request for that very step makes the step's other pending requests obsolete.
 */
export async function memoizeResult(ctx: OpContext, op: OutgoingOp, result: StepResult): Promise<void> {
  // A response may carry several results (steps the SDK buffered): one leased follow-up request covers them all.
  const chained = ctx.continuation.jobId !== null;
  const { continuationJobId } = await completeStep(ctx.tx, ctx.run, op.id, result, stepInfo(op, "StepRun"), ctx.engine.now, {
    lease: ctx.continuation.lease,
    dropPending: ctx.job.stepId === DISCOVERY_STEP ? undefined : "execute",
    queueDiscovery: !chained,
  });
  if (!chained) ctx.continuation.jobId = continuationJobId;
}

/** A step that cannot proceed (bad sleep time, unsupported wait expression): the function sees a StepError. */
export async function failStep(ctx: OpContext, op: OutgoingOp, error: SerializedError): Promise<void> {
  ctx.attempt("step-failed", { httpStatus: 206, error, stepId: op.id });
  await completeStep(ctx.tx, ctx.run, op.id, { error }, stepInfo(op), ctx.engine.now);
}

/** Ends a sleep, or a wait / invoke timeout, at `runAt`. */
export async function scheduleTimer(ctx: OpContext, hashedId: string, runAt: Date): Promise<void> {
  const { run } = ctx;
  await enqueueJob(ctx.tx, { runId: run.id, partition: run.partition, functionId: run.functionId, kind: "timer", stepId: hashedId, runAt, now: ctx.engine.now });
}
