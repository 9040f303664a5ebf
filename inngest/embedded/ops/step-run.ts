import { recordRunnerSteps } from "@/server/observability/metrics";
import type { OpHandler } from "../context";
import { memoizeResult } from "./shared";

/** A step.run finished: its result is memoized and the function continues. */
export const stepRun: OpHandler = async (ctx, op) => {
  ctx.attempt("step-completed", { httpStatus: 206, stepId: op.id });
  await memoizeResult(ctx, op, { data: op.data ?? null });
  recordRunnerSteps(ctx.job.functionId, "completed", [op]);
  return false;
};
