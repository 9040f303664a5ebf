import type { OpHandler } from "../context";
import { finishRun } from "../intake";

/** The function returned: the run completes with its output. */
export const runComplete: OpHandler = async (ctx, op) => {
  ctx.attempt("function-completed", { httpStatus: 206 });
  await finishRun(ctx.tx, ctx.engine, ctx.run, { status: "completed", output: op.data ?? null });
  return true;
};
