import { creditTransactions, type CallAction, type ResultType } from "@/db/schema";
import type { DbOrTx } from "@/db";
import { newId } from "@/server/ids";

/** Results of a call that connected: they cost credits (DESIGN §5). */
export const chargedResultTypes: readonly ResultType[] = ["Goal Completed", "Goal Not Completed", "Voicemail", "No Conversation", "Opted Out"];

/**
 * 1 credit per started minute of a connected call (at least 1); 0 for Busy, Invalid Phone Number, Failed, Cancelled.
 * A call handed to a person is two parts, each charged by its own started minutes: the agent's part (the call's
 * duration less the person's) and the person's part (`humanLegSeconds`, the transferred leg: telephony on two legs,
 * no model) — docs/call-engine.md "Transfers".
 */
export function creditsForCall(resultType: ResultType, durationSeconds: number, humanLegSeconds = 0): number {
  if (!chargedResultTypes.includes(resultType)) return 0;
  const human = Math.max(0, Math.min(humanLegSeconds, durationSeconds));
  const agent = Math.max(0, durationSeconds - human);
  return Math.max(1, Math.ceil(agent / 60)) + Math.ceil(human / 60);
}

/** Seconds people spent on the transferred legs of a call, from its `transfer_call` actions. */
export function humanLegSecondsOf(actions: CallAction[]): number {
  return actions
    .filter((action) => action.actionKey === "transfer_call")
    .reduce((sum, action) => sum + (typeof action.metadata.humanLegSeconds === "number" ? Math.max(0, action.metadata.humanLegSeconds) : 0), 0);
}

export type ChargeCallParams = {
  organizationId: string;
  agentId: string;
  callId: string;
  resultType: ResultType;
  durationSeconds: number;
  /** Of which a person spent on transferred legs (charged as the human part). */
  humanLegSeconds?: number;
  /** When the credits were consumed: the call's end. */
  chargedAt: Date;
};

/**
 * Writes the call's ledger transaction, exactly once: `credit_transactions.call_id` is unique, so a retried
 * charge inserts nothing. Returns the credits charged by this call (0 when it is not chargeable).
 */
export async function chargeCall(db: DbOrTx, params: ChargeCallParams): Promise<number> {
  const credits = creditsForCall(params.resultType, params.durationSeconds, params.humanLegSeconds ?? 0);
  if (credits === 0) return 0;
  await db
    .insert(creditTransactions)
    .values({
      id: newId("txn"),
      organizationId: params.organizationId,
      agentId: params.agentId,
      callId: params.callId,
      credits,
      description: `Call ${params.callId}: ${params.resultType}, ${params.durationSeconds} s${params.humanLegSeconds ? ` (${params.humanLegSeconds} s with a person)` : ""}`,
      createdAt: params.chargedAt,
    })
    .onConflictDoNothing({ target: creditTransactions.callId });
  return credits;
}
