import { newId } from "../ids";
import type { OpHandler } from "../context";
import { resolveWakeTime } from "../durations";
import { createRun } from "../state";
import { failStep, insertStep, scheduleTimer } from "./shared";

/** step.invoke: starts the child run; its end completes this step (see finishRun), or the timeout does. */
export const invokeFunction: OpHandler = async (ctx, op) => {
  const { run, engine } = ctx;
  const functionId = String(op.opts?.function_id ?? "");
  const target = engine.registry.get(functionId);
  if (!target) {
    await failStep(ctx, op, { name: "Error", message: `step.invoke: function "${functionId}" is not registered.` });
    return false;
  }
  const wakeAt = op.opts?.timeout ? resolveWakeTime(String(op.opts.timeout), engine.now) : null;
  const childRunId = newId();
  if (!(await insertStep(ctx, op, "invoking", { wakeAt, invokeRunId: childRunId }))) return false;
  ctx.attempt("invoking", { httpStatus: 206, stepId: op.id });
  const payload = (op.opts?.payload ?? {}) as { data?: Record<string, unknown> };
  const event = {
    id: newId(),
    name: "inngest/function.invoked",
    data: { ...(payload.data ?? {}), _inngest: { source_fn_id: run.functionId, source_run_id: run.id, invoke_correlation_id: `${run.id}.${op.id}` } },
    ts: engine.now.getTime(),
  };
  await createRun(ctx.tx, engine, { fn: target, event, runId: childRunId, partition: run.partition, parentRunId: run.id, parentStepId: op.id, skipIdempotency: true });
  if (wakeAt) await scheduleTimer(ctx, op.id, wakeAt);
  return false;
};
