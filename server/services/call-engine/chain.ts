import type { Db } from "@/db";
import { activateNextChainedContact } from "@/server/services/sequences/activate-next-chained-contact";

export type ChainHandOverResult = { activatedSequenceIds: string[] };

/**
 * Contact chaining (DESIGN §5): when a grouped contact's call ends without Goal Completed, the next waiting contact
 * of the group is scheduled (the enrollment service owns the chain). Idempotent: a sequence hands over at most once,
 * and a repeated call reports nothing newly activated, so `sequence/started` is sent once.
 */
export async function handOverChain(db: Db, params: { sequenceId: string; now: Date }): Promise<ChainHandOverResult> {
  const result = await activateNextChainedContact(db, { sequenceId: params.sequenceId, now: params.now });
  return { activatedSequenceIds: result.newlyActivated && result.activated ? [result.activated.sequenceId] : [] };
}
