import type { OpContext, OpHandler, OutgoingOp } from "../context";
import { finishRun } from "../intake";
import { invokeFunction } from "./invoke-function";
import { runComplete } from "./run-complete";
import { stepInfo } from "./shared";
import { sleep } from "./sleep";
import { stepError } from "./step-error";
import { stepFailed } from "./step-failed";
import { stepPlanned } from "./step-planned";
import { stepRun } from "./step-run";
import { waitForEvent } from "./wait-for-event";

/** One handler per op the SDK can answer with (a 206 body is a list of them). */
export const OP_HANDLERS: Readonly<Record<string, OpHandler>> = {
  RunComplete: runComplete,
  StepRun: stepRun,
  StepFailed: stepFailed,
  StepError: stepError,
  StepPlanned: stepPlanned,
  Sleep: sleep,
  WaitForEvent: waitForEvent,
  InvokeFunction: invokeFunction,
};

/** Ops the runner does not implement (waitForSignal, AI / gateway ops, defer, …) fail the run, naming the op. */
const unsupported: OpHandler = async (ctx, op) => {
  const error = {
    name: "UnsupportedOperationError",
    message: `Function "${ctx.fn.id}" used ${op.op} (step "${stepInfo(op).displayName}"), which the embedded Inngest runner does not support. Run against an Inngest server (INNGEST_DEV=1 or INNGEST_BASE_URL) to use it.`,
  };
  ctx.attempt("unsupported-op", { httpStatus: 206, error, stepId: op.id });
  await finishRun(ctx.tx, ctx.engine, ctx.run, { status: "failed", error });
  return true;
};

/** Applies the ops of a 206 response in order, until one ends the run. */
export async function applyOps(ctx: OpContext, ops: readonly OutgoingOp[]): Promise<void> {
  for (const op of ops) {
    const handler = Object.hasOwn(OP_HANDLERS, op.op) ? OP_HANDLERS[op.op]! : unsupported;
    if (await handler(ctx, op)) return;
  }
}
