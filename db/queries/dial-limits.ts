import { and, desc, eq, gt, inArray, isNotNull, lte, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { calls, organizations, sequences } from "@/db/schema";

/**
 * What the dial gate's compliance checks read (server/services/call-engine/compliance-checks.ts): earlier attempts
 * to a number, calls in the air, credits spent today, recent results. No auth: the dispatcher acts for no
 * organization, and every query is keyed by the organization or agent of the calls it examines.
 */

/** When each number was dialed by the organization since `since` (every agent and sequence: caps count per person). */
export async function findDialTimesOfNumbers(
  db: DbOrTx,
  params: { organizationIds: string[]; phoneNumbers: string[]; since: Date; until: Date },
): Promise<Array<{ organizationId: string; phoneNumber: string; dialedAt: Date }>> {
  if (params.phoneNumbers.length === 0) return [];
  const rows = await db
    .select({ organizationId: calls.organizationId, phoneNumber: sequences.phoneNumber, dialedAt: calls.dialedAt })
    .from(calls)
    .innerJoin(sequences, eq(sequences.id, calls.sequenceId))
    .where(
      and(
        inArray(sequences.organizationId, params.organizationIds),
        inArray(sequences.phoneNumber, params.phoneNumbers),
        isNotNull(calls.dialedAt),
        gt(calls.dialedAt, params.since),
        lte(calls.dialedAt, params.until),
      ),
    );
  return rows.map((row) => ({ ...row, dialedAt: row.dialedAt! }));
}

/** Calls in the air (`Calling`: dialed, not yet ended) per organization and per agent, with each organization's cap. */
export async function findCallsInTheAir(
  db: DbOrTx,
  params: { organizationIds: string[]; agentIds: string[] },
): Promise<{ byOrganization: Map<string, number>; byAgent: Map<string, number>; organizationCaps: Map<string, number | null> }> {
  const [orgRows, agentRows, capRows] = await Promise.all([
    db
      .select({ id: calls.organizationId, count: sql<number>`count(*)::int` })
      .from(calls)
      .where(and(eq(calls.resultType, "Calling"), inArray(calls.organizationId, params.organizationIds)))
      .groupBy(calls.organizationId),
    db
      .select({ id: calls.agentId, count: sql<number>`count(*)::int` })
      .from(calls)
      .where(and(eq(calls.resultType, "Calling"), inArray(calls.agentId, params.agentIds)))
      .groupBy(calls.agentId),
    db
      .select({ id: organizations.id, cap: organizations.maxConcurrentCalls })
      .from(organizations)
      .where(inArray(organizations.id, params.organizationIds)),
  ]);
  return {
    byOrganization: new Map(orgRows.map((row) => [row.id, row.count])),
    byAgent: new Map(agentRows.map((row) => [row.id, row.count])),
    organizationCaps: new Map(capRows.map((row) => [row.id, row.cap])),
  };
}

/** Credits each agent was charged since its own `since` (the start of its day), from the ledger. */
export async function findCreditsSpentSince(
  db: DbOrTx,
  params: { agents: Array<{ organizationId: string; agentId: string; since: Date }> },
): Promise<Map<string, number>> {
  if (params.agents.length === 0) return new Map();
  const values = params.agents.map((agent) => sql`(${agent.organizationId}, ${agent.agentId}, ${agent.since.toISOString()}::timestamptz)`);
  const rows = await db.execute<{ agent_id: string; credits: number }>(sql`
    select a.agent_id, coalesce(sum(t.credits), 0)::int as credits
    from (values ${sql.join(values, sql`, `)}) as a(organization_id, agent_id, since)
    left join credit_transactions t
      on t.organization_id = a.organization_id and t.agent_id = a.agent_id and t.created_at >= a.since
    group by a.agent_id`);
  return new Map(rows.map((row) => [row.agent_id, Number(row.credits)]));
}

/** Results that count in the auto-pause window: the calls that were dialed and ended (not Cancelled, not in the air). */
const FINISHED_RESULTS = ["Goal Completed", "Goal Not Completed", "Voicemail", "Busy", "No Conversation", "Opted Out", "Invalid Phone Number", "Failed"] as const;

/**
 * The results of an agent's last `limit` finished calls (by due time, newest first); with `finishedAfter`, only calls
 * whose result was written after it (`updatedAt`: a provider-refused call has no `endedAt`).
 */
export async function findRecentResultsOfAgent(db: DbOrTx, params: { agentId: string; limit: number; finishedAfter: Date | null }): Promise<string[]> {
  const rows = await db
    .select({ resultType: calls.resultType })
    .from(calls)
    .where(
      and(
        eq(calls.agentId, params.agentId),
        inArray(calls.resultType, [...FINISHED_RESULTS]),
        params.finishedAfter ? gt(calls.updatedAt, params.finishedAfter) : undefined,
      ),
    )
    .orderBy(desc(calls.scheduledAt))
    .limit(params.limit);
  return rows.map((row) => row.resultType);
}
