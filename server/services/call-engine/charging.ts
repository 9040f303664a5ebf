import { creditTransactions, type ResultType } from "@/db/schema";
import type { DbOrTx } from "@/db";
import { newId } from "@/server/ids";

/** Results of a call that connected: they cost credits (DESIGN §5). */
export const chargedResultTypes: readonly ResultType[] = ["Goal Completed", "Goal Not Completed", "Voicemail", "No Conversation", "Opted Out"];

/** 1 credit per started minute of a connected call (at least 1); 0 for Busy, Invalid Phone Number, Failed, Cancelled. */
export function creditsForCall(resultType: ResultType, durationSeconds: number): number {
  if (!chargedResultTypes.includes(resultType)) return 0;
  return Math.max(1, Math.ceil(Math.max(0, durationSeconds) / 60));
}

export type ChargeCallParams = {
  organizationId: string;
  agentId: string;
  callId: string;
  resultType: ResultType;
  durationSeconds: number;
  /** When the credits were consumed: the call's end. */
  chargedAt: Date;
};

/**
 * Writes the call's ledger transaction, exactly once: `credit_transactions.call_id` is unique, so a retried
 * charge inserts nothing. Returns the credits charged by this call (0 when it is not chargeable).
 */
export async function chargeCall(db: DbOrTx, params: ChargeCallParams): Promise<number> {
  const credits = creditsForCall(params.resultType, params.durationSeconds);
  if (credits === 0) return 0;
  await db
    .insert(creditTransactions)
    .values({
      id: newId("txn"),
      organizationId: params.organizationId,
      agentId: params.agentId,
      callId: params.callId,
      credits,
      description: `Call ${params.callId}: ${params.resultType}, ${params.durationSeconds} s`,
      createdAt: params.chargedAt,
    })
    .onConflictDoNothing({ target: creditTransactions.callId });
  return credits;
}
