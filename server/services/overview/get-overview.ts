import { and, desc, eq, gte, inArray, isNotNull, lte, notInArray, sql } from "drizzle-orm";
import { DateTime } from "luxon";
import type { DbOrTx } from "@/db";
import { agents, calls, sequences, type ResultType } from "@/db/schema";
import { chargedResultTypes } from "@/server/services/call-engine/charging";
import { getCreditUsage } from "@/server/services/credits/get-credit-usage";
import { getDailyCreditSpend } from "@/server/services/credits/get-daily-credit-spend";
import { listEndpointHealth } from "@/server/services/webhooks/endpoint-health";
import { getCallQualityOverview } from "./get-call-quality-overview";

export const OVERVIEW_PERIODS = [7, 30] as const;
export type OverviewPeriodDays = (typeof OVERVIEW_PERIODS)[number];

/** Below this share of the month's allocation left, the overview raises a low-credits alert. */
export const LOW_CREDITS_SHARE = 0.1;
const RECENT_CALLS = 10;

/** Results that are not (yet) a call that happened: never dialed, replaced by another step, or still in the air. */
const NOT_PLACED: ResultType[] = ["Scheduled", "Cancelled", "Rescheduled", "Calling"];

export type OverviewParams = { organizationId: string; days: OverviewPeriodDays; now: Date; latencyThresholdMs: number };

/**
 * "How are my calls going": the organization's calls, connect and goal-completion rates, meetings booked and credits
 * over the last `days` UTC days (today included, as GET /credits/usage counts them), the month's credits with a
 * forecast of when the allocation runs out at the last 7 days' pace, the latest calls, and what needs attention.
 *
 * A call counts on the UTC day it ended. Connected = a result that is charged (DESIGN §5: the call was answered by a
 * person or a machine); goal-completion rate = Goal Completed among connected calls; meetings = calls of the period
 * that booked a meeting (cancelled later or not).
 */
export async function getOverview(db: DbOrTx, params: OverviewParams) {
  const today = DateTime.fromJSDate(params.now, { zone: "utc" }).startOf("day");
  const start = today.minus({ days: params.days - 1 });
  const startDate = start.toISODate()!;
  const endDate = today.toISODate()!;
  const org = params.organizationId;

  const day = sql<string>`to_char(${calls.endedAt} at time zone 'UTC', 'YYYY-MM-DD')`;
  const booked = sql`(${calls.followUpMeetingDetails} is not null and ${calls.crmSchedulingDetails} ->> 'bookingUid' is not null)`;
  const connected = inArray(calls.resultType, [...chargedResultTypes]);
  const perDay = await db
    .select({
      date: day,
      calls: sql<number>`count(*)::int`,
      connected: sql<number>`count(*) filter (where ${connected})::int`,
      goalCompleted: sql<number>`count(*) filter (where ${calls.resultType} = 'Goal Completed')::int`,
      meetingsBooked: sql<number>`count(*) filter (where ${booked})::int`,
    })
    .from(calls)
    .where(
      and(
        eq(calls.organizationId, org),
        isNotNull(calls.endedAt),
        gte(calls.endedAt, start.toJSDate()),
        lte(calls.endedAt, params.now),
        notInArray(calls.resultType, NOT_PLACED),
      ),
    )
    .groupBy(day);
  const byDate = new Map(perDay.map((row) => [row.date, row]));

  const spend = await getDailyCreditSpend(db, { organizationId: org, startDate, endDate, now: params.now });
  const spendByDate = new Map(spend.days.map((d) => [d.date, d.spentCredits]));
  const daily: Array<{ date: string; calls: number; connected: number; goalCompleted: number; meetingsBooked: number; spentCredits: number }> = [];
  for (let cursor = start; cursor <= today; cursor = cursor.plus({ days: 1 })) {
    const date = cursor.toISODate()!;
    const row = byDate.get(date);
    daily.push({
      date,
      calls: row?.calls ?? 0,
      connected: row?.connected ?? 0,
      goalCompleted: row?.goalCompleted ?? 0,
      meetingsBooked: row?.meetingsBooked ?? 0,
      spentCredits: spendByDate.get(date) ?? 0,
    });
  }
  const sum = (key: "calls" | "connected" | "goalCompleted" | "meetingsBooked" | "spentCredits") => daily.reduce((total, d) => total + d[key], 0);
  const totals = { calls: sum("calls"), connected: sum("connected"), goalCompleted: sum("goalCompleted"), meetingsBooked: sum("meetingsBooked"), spentCredits: sum("spentCredits") };
  const rate = (part: number, whole: number) => (whole > 0 ? Math.round((part / whole) * 1000) / 10 : null);

  const month = await getCreditUsage(db, { organizationId: org, now: params.now });
  const forecast = await creditForecast(db, { organizationId: org, now: params.now, month: month.organization });

  const recent = await db
    .select({
      callId: calls.id,
      sequenceId: calls.sequenceId,
      contactName: sequences.name,
      timezone: sequences.timezone,
      agentId: agents.id,
      agentName: agents.name,
      resultType: calls.resultType,
      durationSeconds: calls.duration,
      endedAt: calls.endedAt,
    })
    .from(calls)
    .innerJoin(sequences, eq(sequences.id, calls.sequenceId))
    .innerJoin(agents, eq(agents.id, calls.agentId))
    .where(and(eq(calls.organizationId, org), isNotNull(calls.endedAt), lte(calls.endedAt, params.now), notInArray(calls.resultType, NOT_PLACED)))
    .orderBy(desc(calls.endedAt), desc(calls.id))
    .limit(RECENT_CALLS);

  const pausedAgents = await db
    .select({
      agentId: agents.id,
      name: agents.name,
      pauseReason: agents.pauseReason,
      pauseSource: agents.pauseSource,
      pausedAt: agents.pausedAt,
      // Spelled out: drizzle leaves the outer table's columns unqualified in a single-table select.
      pendingCalls: sql<number>`(select count(*)::int from calls c where c.agent_id = "agents"."id" and c.organization_id = ${org} and c.result_type = 'Scheduled')`,
    })
    .from(agents)
    .where(and(eq(agents.organizationId, org), eq(agents.status, "PAUSED")))
    .orderBy(agents.name, agents.id);
  const failingEndpoints = (await listEndpointHealth(db, { organizationId: org })).filter((endpoint) => endpoint.state === "failing");

  const { allocatedCredits, remainingCredits } = month.organization;
  const lowCredits =
    allocatedCredits !== null && remainingCredits !== null && allocatedCredits > 0 && (remainingCredits <= allocatedCredits * LOW_CREDITS_SHARE || forecast.runsOutBeforeMonthEnd);

  const callQuality = await getCallQualityOverview(db, { organizationId: org, start: start.toJSDate(), end: params.now, latencyThresholdMs: params.latencyThresholdMs });

  return {
    period: { days: params.days, startDate, endDate },
    totals: {
      ...totals,
      connectRate: rate(totals.connected, totals.calls),
      goalCompletionRate: rate(totals.goalCompleted, totals.connected),
    },
    daily,
    month: { month: month.period.month!, ...month.organization, ...forecast },
    recentCalls: recent.map((call) => ({ ...call, endedAt: call.endedAt!.toISOString() })),
    callQuality,
    alerts: {
      failingEndpoints: failingEndpoints.map(({ endpointId, url, failingSince, consecutiveFailures }) => ({ endpointId, url, failingSince, consecutiveFailures })),
      pausedAgents: pausedAgents
        .filter((agent) => agent.pendingCalls > 0)
        .map((agent) => ({ ...agent, pausedAt: agent.pausedAt?.toISOString() ?? null })),
      lowCredits,
    },
  };
}

/**
 * When this month's allocation runs out at the pace of the last 7 UTC days (today included): the average daily spend,
 * the day the remaining credits reach zero (null when nothing is being spent or nothing is allocated), and whether
 * that is before the month ends (after it, the next month's allocation takes over).
 */
async function creditForecast(
  db: DbOrTx,
  params: { organizationId: string; now: Date; month: { allocatedCredits: number | null; remainingCredits: number | null } },
) {
  const today = DateTime.fromJSDate(params.now, { zone: "utc" }).startOf("day");
  const week = await getDailyCreditSpend(db, {
    organizationId: params.organizationId,
    startDate: today.minus({ days: 6 }).toISODate()!,
    endDate: today.toISODate()!,
    now: params.now,
  });
  const exactBurn = week.days.reduce((total, d) => total + d.spentCredits, 0) / week.days.length;
  const dailyBurn = Math.round(exactBurn * 10) / 10;
  const remaining = params.month.remainingCredits;
  let runsOutOn: string | null = null;
  if (remaining !== null && params.month.allocatedCredits) {
    if (remaining <= 0) runsOutOn = today.toISODate()!;
    else if (exactBurn > 0) runsOutOn = today.plus({ days: Math.floor(remaining / exactBurn) }).toISODate()!;
  }
  const monthEnd = today.endOf("month").toISODate()!;
  return { dailyBurn, runsOutOn, runsOutBeforeMonthEnd: runsOutOn !== null && runsOutOn <= monthEnd };
}
