import { and, asc, eq, inArray } from "drizzle-orm";
import type { Db, DbOrTx } from "@/db";
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

/**
 * An internal error stopped the sequence (its runner failed for good): `failed`, and its calls that were still
 * waiting to be dialed become `Cancelled`. A call already in the air is left to finish (and be analysed).
 */
export async function failSequence(db: Db, params: { sequenceId: string; now: Date }): Promise<boolean> {
  return db.transaction(async (tx) => {
    const [sequence] = await tx.select().from(sequences).where(eq(sequences.id, params.sequenceId)).for("update");
    if (!sequence || sequence.lifecycleStatus !== "in progress") return false;
    await tx
      .update(sequences)
      .set({ lifecycleStatus: "failed", endedAt: params.now, updatedAt: params.now })
      .where(eq(sequences.id, params.sequenceId));
    await tx
      .update(calls)
      .set({ resultType: "Cancelled", summary: "Not dialed: the sequence stopped after an internal error.", updatedAt: params.now })
      .where(and(eq(calls.sequenceId, params.sequenceId), inArray(calls.resultType, ["Scheduled", "Rescheduled"])));
    return true;
  });
}
