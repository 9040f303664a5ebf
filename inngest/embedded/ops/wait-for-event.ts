import type { OpHandler } from "../context";
import { resolveWakeTime } from "../durations";
import { bindConditions, ExpressionError, parseCondition, type Condition } from "../expressions";
import { failStep, insertStep, scheduleTimer, stepInfo } from "./shared";

/** The first equality between an `async.` field and a value: the index intake uses to find waiters in SQL. */
function firstEquality(conditions: Condition[]): { path: string[]; value: unknown } | null {
  for (const { left, op, right } of conditions) {
    if (op !== "==") continue;
    if (left.kind === "path" && left.root === "async" && right.kind === "literal" && right.value !== undefined) return { path: left.path, value: right.value };
    if (right.kind === "path" && right.root === "async" && left.kind === "literal" && left.value !== undefined) return { path: right.path, value: left.value };
  }
  return null;
}

/**
 * step.waitForEvent: records the waiter with its condition bound to the run's event (intake resumes it with the
 * first matching event) and a timer that resumes it with null at the timeout.
 */
export const waitForEvent: OpHandler = async (ctx, op) => {
  const expression = typeof op.opts?.if === "string" ? op.opts.if : null;
  let conditions: Condition[] = [];
  let wakeAt: Date;
  try {
    if (expression) conditions = bindConditions(parseCondition(expression), "event", ctx.run.event);
    wakeAt = resolveWakeTime(String(op.opts?.timeout ?? ""), ctx.engine.now);
  } catch (error) {
    const message =
      error instanceof ExpressionError
        ? `Function "${ctx.fn.id}", step "${stepInfo(op).displayName}" (waitForEvent): ${error.message}`
        : (error as Error).message;
    await failStep(ctx, op, { name: "UnsupportedExpressionError", message });
    return false;
  }
  const match = firstEquality(conditions);
  const inserted = await insertStep(ctx, op, "waiting", {
    wakeAt,
    waitEvent: String(op.name),
    waitExpression: expression,
    waitConditions: conditions,
    waitMatchPath: match?.path ?? null,
    waitMatchValue: match ? match.value : null,
  });
  if (!inserted) return false;
  ctx.attempt("waiting", { httpStatus: 206, stepId: op.id });
  await scheduleTimer(ctx, op.id, wakeAt);
  return false;
};
