import { and, asc, eq, inArray } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { calls, sequences, type LifecycleStatus, type ResultType } from "@/db/schema";

const OPEN_RESULT_TYPES: ResultType[] = ["Scheduled", "Rescheduled", "Calling", "Processing Analysis"];

export type OpenCall =
  | { state: "finished"; lifecycleStatus: LifecycleStatus | null }
  | { state: "scheduled"; callId: string; dueAt: string }
  | { state: "in-flight"; callId: string; resultType: ResultType };

/**
 * Where a sequence stands, for its runner: the call it should act on next (the one scheduled, or the one in the
 * air), or `finished` when there is nothing left to do (sequence no longer in progress, or — a chained contact
 * still waiting — no call yet).
 */
export async function findOpenCall(db: DbOrTx, sequenceId: string): Promise<OpenCall> {
  const [sequence] = await db.select({ lifecycleStatus: sequences.lifecycleStatus }).from(sequences).where(eq(sequences.id, sequenceId)).limit(1);
  if (!sequence) return { state: "finished", lifecycleStatus: null };
  const [open] = await db
    .select({ id: calls.id, resultType: calls.resultType, scheduledAt: calls.scheduledAt })
    .from(calls)
    .where(and(eq(calls.sequenceId, sequenceId), inArray(calls.resultType, OPEN_RESULT_TYPES)))
    .orderBy(asc(calls.stepNumber), asc(calls.attempt))
    .limit(1);
  if (open && (open.resultType === "Calling" || open.resultType === "Processing Analysis")) {
    return { state: "in-flight", callId: open.id, resultType: open.resultType };
  }
  if (!open || sequence.lifecycleStatus !== "in progress") return { state: "finished", lifecycleStatus: sequence.lifecycleStatus };
  return { state: "scheduled", callId: open.id, dueAt: open.scheduledAt.toISOString() };
}
