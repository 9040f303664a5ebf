import { sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { answeredByClasses, type AnsweredByClass } from "@/db/schema/call-quality";

const SLOW_CALLS_LISTED = 20;

export type CallQualityOverviewParams = {
  organizationId: string;
  /** The period: calls that ended in [start, end]. */
  start: Date;
  end: Date;
  /** A call whose p95 response latency is above this is listed as slow (CALL_QUALITY_LATENCY_THRESHOLD_MS). */
  latencyThresholdMs: number;
};

type Percentiles = { p50: number; p95: number } | null;

const percentiles = (p50: number | null, p95: number | null): Percentiles => (p50 === null || p95 === null ? null : { p50: Math.round(p50), p95: Math.round(p95) });

/**
 * The overview's call-quality figures over a period (docs/call-quality.md "Aggregates"): per agent, p50/p95 of the
 * response latency over all measured turns and of the greeting delay over the calls; the share of answered calls by
 * who answered; and the calls whose own p95 response latency is above the threshold (the slowest first, linked by the
 * console). Percentiles are Postgres's `percentile_cont` (interpolated). Only calls with measurements count.
 */
export async function getCallQualityOverview(db: DbOrTx, params: CallQualityOverviewParams) {
  const inPeriod = sql`c.organization_id = ${params.organizationId} and c.quality is not null and c.ended_at >= ${params.start.toISOString()}::timestamptz and c.ended_at <= ${params.end.toISOString()}::timestamptz`;
  const perAgent = (await db.execute(sql`
    select a.id as "agentId", a.name,
      count(*)::int as calls,
      percentile_cont(0.5) within group (order by (c.quality->>'greetingMs')::float8) filter (where c.quality->>'greetingMs' is not null) as "greetingP50",
      percentile_cont(0.95) within group (order by (c.quality->>'greetingMs')::float8) filter (where c.quality->>'greetingMs' is not null) as "greetingP95"
    from calls c join agents a on a.id = c.agent_id
    where ${inPeriod}
    group by a.id, a.name
    order by a.name, a.id`)) as unknown as Array<{ agentId: string; name: string; calls: number; greetingP50: number | null; greetingP95: number | null }>;
  const turnLatency = (await db.execute(sql`
    select c.agent_id as "agentId", count(*)::int as turns,
      percentile_cont(0.5) within group (order by (t->>'responseMs')::float8) as p50,
      percentile_cont(0.95) within group (order by (t->>'responseMs')::float8) as p95
    from calls c cross join lateral jsonb_array_elements(c.quality->'turns') t
    where ${inPeriod}
    group by c.agent_id`)) as unknown as Array<{ agentId: string; turns: number; p50: number; p95: number }>;
  const byAnswerer = (await db.execute(sql`
    select c.quality->>'answeredBy' as "answeredBy", count(*)::int as calls
    from calls c where ${inPeriod} group by 1`)) as unknown as Array<{ answeredBy: string; calls: number }>;
  const slow = (await db.execute(sql`
    select c.id as "callId", c.sequence_id as "sequenceId", a.name as "agentName", s.name as "contactName", c.ended_at as "endedAt", q.p95 as "responseP95Ms",
      count(*) over ()::int as total
    from calls c
      join agents a on a.id = c.agent_id
      join sequences s on s.id = c.sequence_id
      cross join lateral (select percentile_cont(0.95) within group (order by (t->>'responseMs')::float8) as p95 from jsonb_array_elements(c.quality->'turns') t) q
    where ${inPeriod} and q.p95 > ${params.latencyThresholdMs}
    order by q.p95 desc, c.id
    limit ${SLOW_CALLS_LISTED}`)) as unknown as Array<{ callId: string; sequenceId: string; agentName: string; contactName: string; endedAt: Date | string; responseP95Ms: number; total: number }>;

  const latencyByAgent = new Map(turnLatency.map((row) => [row.agentId, row]));
  const answered = byAnswerer.reduce((sum, row) => sum + row.calls, 0);
  const counts = new Map(byAnswerer.map((row) => [row.answeredBy, row.calls]));
  return {
    latencyThresholdMs: params.latencyThresholdMs,
    agents: perAgent.map((row) => {
      const latency = latencyByAgent.get(row.agentId);
      return {
        agentId: row.agentId,
        name: row.name,
        calls: row.calls,
        turns: latency?.turns ?? 0,
        responseMs: latency ? percentiles(latency.p50, latency.p95) : null,
        greetingMs: percentiles(row.greetingP50, row.greetingP95),
      };
    }),
    answeredBy: answeredByClasses.map((answeredBy: AnsweredByClass) => {
      const calls = counts.get(answeredBy) ?? 0;
      return { answeredBy, calls, share: answered > 0 ? Math.round((calls / answered) * 1000) / 10 : null };
    }),
    slowCalls: {
      total: slow[0]?.total ?? 0,
      calls: slow.map(({ total: _total, endedAt, responseP95Ms, ...call }) => ({ ...call, endedAt: new Date(endedAt).toISOString(), responseP95Ms: Math.round(responseP95Ms) })),
    },
  };
}
