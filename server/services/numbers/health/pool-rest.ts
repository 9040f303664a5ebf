import { and, eq, inArray, ne } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { agents, numbers } from "@/db/schema";
import { AppError } from "@/server/errors";

export type PoolRest = {
  /** Every number of the pool rests now: its calls wait (the dialer never swaps in another number to dodge a label). */
  allResting: boolean;
  resting: Array<{ numberId: string; phoneNumber: string; restingUntil: string; reason: string | null }>;
  /** When the first resting number comes back (under watch); null when none rests. */
  nextBackAt: string | null;
  /** What the agent's page says when the whole pool rests; null otherwise. */
  message: string | null;
};

/**
 * Which numbers of a pool (an agent's `phoneNumbers`) rest at `now`, and — when all of them do — the sentence the
 * agent's page shows: its calls wait until the first number is back. Numbers that are not the organization's live
 * numbers are ignored (they are not dialed anyway).
 */
export async function findPoolRest(db: DbOrTx, params: { organizationId: string; phoneNumbers: string[]; now: Date }): Promise<PoolRest> {
  const pool = [...new Set(params.phoneNumbers)];
  const rows =
    pool.length === 0
      ? []
      : await db
          .select({ id: numbers.id, phoneNumber: numbers.phoneNumber, restingUntil: numbers.restingUntil, healthReason: numbers.healthReason })
          .from(numbers)
          .where(and(eq(numbers.organizationId, params.organizationId), inArray(numbers.phoneNumber, pool), ne(numbers.status, "released")));
  const resting = rows
    .filter((row) => row.restingUntil !== null && row.restingUntil > params.now)
    .sort((a, b) => a.restingUntil!.getTime() - b.restingUntil!.getTime())
    .map((row) => ({ numberId: row.id, phoneNumber: row.phoneNumber, restingUntil: row.restingUntil!.toISOString(), reason: row.healthReason }));
  const allResting = rows.length > 0 && resting.length === rows.length;
  const nextBackAt = resting[0]?.restingUntil ?? null;
  return {
    allResting,
    resting,
    nextBackAt,
    message: allResting
      ? `Calls are waiting: every number of this agent is resting (people stopped answering it, against your other numbers to the same places and hours). Calls resume when the first one is back, under watch, at ${nextBackAt}.`
      : null,
  };
}

/** findPoolRest of an agent's pool (the console's agent page). 404 AGENT_NOT_FOUND unless the agent is the organization's. */
export async function findAgentPoolRest(db: DbOrTx, params: { organizationId: string; agentId: string; now: Date }): Promise<PoolRest> {
  const [agent] = await db
    .select({ phoneNumbers: agents.phoneNumbers })
    .from(agents)
    .where(and(eq(agents.id, params.agentId), eq(agents.organizationId, params.organizationId)));
  if (!agent) throw new AppError("AGENT_NOT_FOUND", `Agent ${params.agentId} was not found.`);
  return findPoolRest(db, { organizationId: params.organizationId, phoneNumbers: agent.phoneNumbers, now: params.now });
}
