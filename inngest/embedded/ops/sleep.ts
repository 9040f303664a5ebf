import type { OpHandler } from "../context";
import { resolveWakeTime } from "../durations";
import { serializeError } from "../state";
import { failStep, insertStep, scheduleTimer } from "./shared";

/** step.sleep / step.sleepUntil: the step completes when its timer fires. */
export const sleep: OpHandler = async (ctx, op) => {
  let wakeAt: Date;
  try {
    wakeAt = resolveWakeTime(String(op.name ?? ""), ctx.engine.now);
  } catch (error) {
    await failStep(ctx, op, serializeError(error));
    return false;
  }
  if (!(await insertStep(ctx, op, "sleeping", { wakeAt }))) return false;
  ctx.attempt("sleeping", { httpStatus: 206, stepId: op.id });
  await scheduleTimer(ctx, op.id, wakeAt);
  return false;
};
