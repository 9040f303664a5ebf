import { and, asc, eq } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { inngestAttempts, inngestRuns, inngestSteps } from "@/db/schema/jobs";
import { AppError } from "@/server/errors";
import { runVisibleTo, summarizeRuns } from "./list-runs";
import { redactRunForOrganization, type RedactedRunDetail } from "./org-scoped-output";
import type { RunDetail } from "./run-types";

/**
 * One run with its steps (in creation order) and every request made for it. Raises NOT_FOUND for an unknown id or a
 * run the organization may not see. With an organization, outputs and errors not provably about its data are redacted
 * (org-scoped-output.ts); `organizationId: null` (operators, `npm run jobs`) shows everything.
 */
export async function getRun(db: DbOrTx, params: { runId: string; organizationId: string | null }): Promise<RedactedRunDetail> {
  const visible = params.organizationId ? runVisibleTo(params.organizationId) : undefined;
  const [row] = await db.select().from(inngestRuns).where(and(eq(inngestRuns.id, params.runId), visible));
  if (!row) throw new AppError("NOT_FOUND", `Run ${params.runId} not found.`);
  const [[summary], steps, attempts] = await Promise.all([
    summarizeRuns(db, [row]),
    db.select().from(inngestSteps).where(eq(inngestSteps.runId, row.id)).orderBy(asc(inngestSteps.createdAt), asc(inngestSteps.stepId)),
    db.select().from(inngestAttempts).where(eq(inngestAttempts.runId, row.id)).orderBy(asc(inngestAttempts.id)),
  ]);
  const nameByHash = new Map(steps.map((step) => [step.hashedId, step.displayName]));
  const detail: RunDetail = {
    ...summary!,
    event: row.event,
    output: row.output ?? null,
    steps: steps.map((step) => ({
      stepId: step.stepId,
      hashedId: step.hashedId,
      name: step.displayName,
      op: step.op,
      status: step.status,
      attempts: step.attempts,
      wakeAt: step.wakeAt,
      waitEvent: step.waitEvent,
      waitExpression: step.waitExpression,
      output: step.data ?? null,
      error: step.error ?? null,
      createdAt: step.createdAt,
      completedAt: step.completedAt,
    })),
    attempts: attempts.map((attempt) => ({
      stepId: attempt.stepId,
      stepName: attempt.stepId === "step" ? null : (nameByHash.get(attempt.stepId) ?? null),
      attempt: attempt.attempt,
      outcome: attempt.outcome,
      httpStatus: attempt.httpStatus,
      error: attempt.error ?? null,
      runnerId: attempt.runnerId,
      startedAt: attempt.startedAt,
      durationMs: attempt.durationMs,
    })),
  };
  if (params.organizationId) return redactRunForOrganization(db, detail, params.organizationId);
  return { ...detail, outputRedacted: false, steps: detail.steps.map((step) => ({ ...step, outputRedacted: false })) };
}
