import type { Db } from "@/db";

export type ChainHandOverResult = { activatedSequenceIds: string[] };

/**
 * Contact chaining (DESIGN §5): when a grouped contact's call ends without Goal Completed, the next waiting contact
 * of the group is scheduled. The enrollment service owns the chain (`activateNextChainedContact`).
 */
export async function handOverChain(db: Db, params: { sequenceId: string; now: Date }): Promise<ChainHandOverResult> {
  void db;
  void params;
  return { activatedSequenceIds: [] };
}
