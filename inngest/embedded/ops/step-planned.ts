import type { OpHandler } from "../context";
import { enqueueJob } from "../state";
import { insertStep } from "./shared";

/** Parallel steps (or a step the SDK did not run at once): each gets a request of its own. */
export const stepPlanned: OpHandler = async (ctx, op) => {
  const { run, engine } = ctx;
  if (!(await insertStep(ctx, op, "planned", {}, "StepRun"))) return false;
  ctx.attempt("planned", { httpStatus: 206, stepId: op.id });
  await enqueueJob(ctx.tx, {
    runId: run.id,
    partition: run.partition,
    functionId: run.functionId,
    kind: "execute",
    stepId: op.id,
    runAt: engine.now,
    concurrency: run.concurrency,
    now: engine.now,
  });
  return false;
};
