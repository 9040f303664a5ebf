import type { OpHandler } from "../context";
import { serializeError } from "../state";
import { memoizeResult } from "./shared";

/** A step failed for good (NonRetriableError, or its last attempt): the error is memoized; the function sees a StepError. */
export const stepFailed: OpHandler = async (ctx, op) => {
  const error = serializeError(op.error ?? { name: "Error", message: "step failed" });
  ctx.attempt("step-failed", { httpStatus: 206, error, stepId: op.id });
  await memoizeResult(ctx, op, { error });
  return false;
};
