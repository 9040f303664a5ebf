import { and, desc, eq, inArray, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { calls, callTransfers, type CallAction } from "@/db/schema";

export type CallTransferRow = typeof callTransfers.$inferSelect;
export type TransferOutcome = CallTransferRow["outcome"];

export async function insertTransfer(db: DbOrTx, row: typeof callTransfers.$inferInsert): Promise<void> {
  await db.insert(callTransfers).values(row);
}

export async function findTransfer(db: DbOrTx, params: { callId: string; transferId: string }): Promise<CallTransferRow | null> {
  const [row] = await db
    .select()
    .from(callTransfers)
    .where(and(eq(callTransfers.id, params.transferId), eq(callTransfers.callId, params.callId)))
    .limit(1);
  return row ?? null;
}

export async function findTransfersOfCall(db: DbOrTx, callId: string): Promise<CallTransferRow[]> {
  return db.select().from(callTransfers).where(eq(callTransfers.callId, callId)).orderBy(desc(callTransfers.startedAt));
}

export async function bindTransferLeg(db: DbOrTx, params: { transferId: string; legCallSid: string }): Promise<void> {
  await db
    .update(callTransfers)
    .set({ legCallSid: params.legCallSid })
    .where(and(eq(callTransfers.id, params.transferId), sql`${callTransfers.legCallSid} is null`));
}

/** The person picked up (first time only); returns whether this call of it moved the transfer. */
export async function markTransferAnswered(db: DbOrTx, params: { transferId: string; at: Date; whisper?: string | null }): Promise<boolean> {
  const updated = await db
    .update(callTransfers)
    .set({ outcome: "answered", answeredAt: params.at, ...(params.whisper !== undefined ? { whisper: params.whisper } : {}) })
    .where(and(eq(callTransfers.id, params.transferId), eq(callTransfers.outcome, "dialing")))
    .returning({ id: callTransfers.id });
  return updated.length > 0;
}

/**
 * The transfer is over: the person's leg ended (`completed`), or nobody took the call (`busy`, `no-answer`, `failed`;
 * `returned` when the caller is handed back to the agent). Only the first conclusion counts — callbacks repeat and a
 * timer races them — and that one appends the `transfer_call` action to the call (metadata and webhook).
 */
export async function concludeTransfer(
  db: DbOrTx,
  params: { transferId: string; outcome: Exclude<TransferOutcome, "dialing" | "answered">; at: Date; humanLegSeconds?: number; returned?: boolean },
): Promise<CallTransferRow | null> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .update(callTransfers)
      .set({
        outcome: params.outcome,
        endedAt: params.at,
        ...(params.humanLegSeconds !== undefined ? { humanLegSeconds: Math.max(0, Math.round(params.humanLegSeconds)) } : {}),
        ...(params.returned ? { returnedAt: params.at } : {}),
      })
      .where(and(eq(callTransfers.id, params.transferId), inArray(callTransfers.outcome, params.outcome === "completed" ? ["dialing", "answered"] : ["dialing"])))
      .returning();
    if (!row) return null;
    await appendAgentAction(tx, row.callId, transferAction(row));
    return row;
  });
}

export async function appendAgentAction(db: DbOrTx, callId: string, action: CallAction): Promise<void> {
  await db
    .update(calls)
    .set({ agentActions: sql`${calls.agentActions} || ${JSON.stringify([action])}::jsonb` })
    .where(eq(calls.id, callId));
}

/**
 * The call result's record of a transfer (`agentActions[]`, actionKey `transfer_call`): the target's label, cold or
 * warm, when it started, whether the person answered and how long their part lasted (charged per started minute,
 * docs/call-engine.md "Transfers").
 */
export function transferAction(row: Pick<CallTransferRow, "targetLabel" | "mode" | "startedAt" | "answeredAt" | "endedAt" | "humanLegSeconds" | "outcome" | "reason">): CallAction {
  const answered = row.answeredAt !== null || row.outcome === "completed";
  return {
    description: answered ? `Transferred the call to ${row.targetLabel} (${row.mode})` : `Tried to transfer the call to ${row.targetLabel} (${row.mode}); nobody answered`,
    status: answered ? "completed" : "failed",
    actionKey: "transfer_call",
    completedAt: (row.endedAt ?? row.startedAt).toISOString(),
    metadata: {
      targetLabel: row.targetLabel,
      mode: row.mode,
      startedAt: row.startedAt.toISOString(),
      answered,
      humanLegSeconds: answered ? (row.humanLegSeconds ?? 0) : 0,
      outcome: row.outcome,
      reason: row.reason,
    },
  };
}
