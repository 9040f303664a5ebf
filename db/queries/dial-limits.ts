import { and, eq, gt, inArray, isNotNull, lte, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { agents, calls, sequences } from "@/db/schema";

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
 * For each agent with auto-pause on: the results of its last `auto_pause_window_calls` finished calls in dial order
 * (newest first), counting only calls whose result was written after the agent was last paused (`paused_at`), so a
 * resumed agent starts a fresh window.
 *
 * Only calls dialed before the agent's earliest call still in progress count. Failed and invalid numbers end within
 * seconds while answered calls talk for minutes, so in a burst the first calls to finish are the failures: counted by
 * finishing order, a campaign with one bad number in five paused itself after a few hundred calls. Counted by dial
 * order up to the first call whose outcome is not known yet, the window is an unbiased sample; it waits at most one
 * conversation for the slow outcomes. Calls never dialed (stopped at the gate) are not in the window. One query for all
 * the agents: a lateral subquery each on calls_agent_dialed_idx, the earliest call in progress on calls_in_flight_idx.
 */
export async function findAutoPauseWindows(db: DbOrTx, params: { agentIds: string[] }): Promise<Map<string, string[]>> {
  const windows = new Map<string, string[]>();
  if (params.agentIds.length === 0) return windows;
  const finished = sql.join(
    FINISHED_RESULTS.map((result) => sql`${result}`),
    sql`, `,
  );
  const rows = await db.execute<{ agent_id: string; result_type: string }>(sql`
    select a.id as agent_id, r.result_type
    from ${agents} a
    cross join lateral (
      select c.result_type from ${calls} c
      where c.agent_id = a.id and c.dialed_at is not null and c.result_type in (${finished})
        and (a.paused_at is null or c.updated_at > a.paused_at)
        and c.dialed_at < coalesce((
          select min(o.dialed_at) from ${calls} o
          where o.agent_id = a.id and o.result_type in ('Calling', 'Processing Analysis') and o.dialed_at is not null
        ), 'infinity'::timestamptz)
      order by c.dialed_at desc
      limit a.auto_pause_window_calls
    ) r
    where a.id in (${sql.join(
      params.agentIds.map((id) => sql`${id}`),
      sql`, `,
    )}) and a.auto_pause_enabled`);
  for (const row of rows) windows.set(row.agent_id, [...(windows.get(row.agent_id) ?? []), row.result_type]);
  return windows;
}

/**
 * Calls in the air (`Calling`: claimed, placed or ringing, answered) of these organizations, per organization and per
 * agent, for the concurrency caps. Takes a transaction-scoped advisory lock per organization first (in a fixed order),
 * so two dispatchers claiming for one organization count one after the other and cannot both fill the last place.
 */
export async function countCallsInFlight(
  db: DbOrTx,
  params: { organizationIds: string[] },
): Promise<{ byOrganization: Map<string, number>; byAgent: Map<string, number> }> {
  const byOrganization = new Map<string, number>();
  const byAgent = new Map<string, number>();
  if (params.organizationIds.length === 0) return { byOrganization, byAgent };
  for (const organizationId of [...params.organizationIds].sort()) {
    await db.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`dial-concurrency:${organizationId}`}, 0))`);
  }
  const rows = await db
    .select({ organizationId: calls.organizationId, agentId: calls.agentId, count: sql<number>`count(*)::int` })
    .from(calls)
    .where(and(inArray(calls.organizationId, params.organizationIds), eq(calls.resultType, "Calling")))
    .groupBy(calls.organizationId, calls.agentId);
  for (const row of rows) {
    byOrganization.set(row.organizationId, (byOrganization.get(row.organizationId) ?? 0) + Number(row.count));
    byAgent.set(row.agentId, (byAgent.get(row.agentId) ?? 0) + Number(row.count));
  }
  return { byOrganization, byAgent };
}

