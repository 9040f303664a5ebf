"use client";

import dynamic from "next/dynamic";
import Link from "next/link";
import { useMemo } from "react";
import { useOrgPath } from "../../../_components/org-context";
import type { RouterOutputs } from "../../../_components/router-types";
import { Alert } from "../../../_components/ui/alert";
import { Section } from "../../../_components/ui/card";
import { columnsFor, DataTable } from "../../../_components/ui/data-table";
import { formatMonth, formatUtcDay, plural } from "../../../_components/ui/format";
import { StatCard, StatGrid } from "../../../_components/ui/stat-card";
import { Loading } from "../../../_components/ui/states";
import { Duration, LocalTime, ZonedTime } from "../../../_components/ui/time";
import { ResultBadge } from "../../../_components/status-badges";

const OverviewCharts = dynamic(() => import("./overview-charts"), { ssr: false, loading: () => <Loading label="Loading chart…" rows={2} /> });

export type Overview = RouterOutputs["overview"]["get"];
type Day = Overview["daily"][number];
type RecentCall = Overview["recentCalls"][number];

const percent = (value: number | null) => (value === null ? "—" : `${value.toLocaleString()}%`);

/** The period's figures: calls, connect rate, goal completion, meetings, credits. */
export function PeriodStats({ overview }: { overview: Overview }) {
  const { totals, period } = overview;
  const range = `${formatUtcDay(period.startDate)} to ${formatUtcDay(period.endDate)} (UTC days)`;
  return (
    <StatGrid className="lg:grid-cols-5">
      <StatCard testId="overview-calls" label="Calls" value={totals.calls.toLocaleString()} hint={range} />
      <StatCard testId="overview-connect-rate" label="Connect rate" value={percent(totals.connectRate)} hint={`${totals.connected.toLocaleString()} answered`} />
      <StatCard
        testId="overview-goal-rate"
        label="Goal completed"
        value={percent(totals.goalCompletionRate)}
        hint={`${totals.goalCompleted.toLocaleString()} of ${totals.connected.toLocaleString()} answered calls`}
      />
      <StatCard testId="overview-meetings" label="Meetings booked" value={totals.meetingsBooked.toLocaleString()} />
      <StatCard testId="overview-credits" label="Credits spent" value={totals.spentCredits.toLocaleString()} />
    </StatGrid>
  );
}

const dayCol = columnsFor<Day>();
const dayColumns = [
  dayCol.accessor("date", { header: "Day (UTC)", cell: ({ getValue }) => formatUtcDay(getValue()) }),
  dayCol.accessor("calls", { header: "Calls", meta: { numeric: true } }),
  dayCol.accessor("connected", { header: "Answered", meta: { numeric: true } }),
  dayCol.accessor("goalCompleted", { header: "Goal completed", meta: { numeric: true } }),
  dayCol.accessor("meetingsBooked", { header: "Meetings", meta: { numeric: true } }),
  dayCol.accessor("spentCredits", { header: "Credits", meta: { numeric: true } }),
];

/** Calls and credits per day, as charts (lazy) and as a table. */
export function DailyCharts({ overview }: { overview: Overview }) {
  const days = overview.daily.length;
  return (
    <Section title="Day by day">
      <div className="grid grid-cols-1 gap-4 lg:grid-cols-2">
        <div>
          <h3 className="mb-2 text-sm font-semibold">Calls per day</h3>
          <div className="h-56 w-full" role="img" aria-label={`Bar chart of calls per day, answered and not, ${days} days`} data-testid="overview-calls-chart">
            <OverviewCharts days={overview.daily} chart="calls" />
          </div>
        </div>
        <div>
          <h3 className="mb-2 text-sm font-semibold">Credits per day</h3>
          <div className="h-56 w-full" role="img" aria-label={`Bar chart of credits spent per day, ${days} days`} data-testid="overview-credits-chart">
            <OverviewCharts days={overview.daily} chart="credits" />
          </div>
        </div>
      </div>
      <details className="mt-3">
        <summary className="cursor-pointer">Day by day as a table</summary>
        <DataTable columns={dayColumns} data={overview.daily} getRowId={(d) => d.date} caption="Calls and credits per day (UTC)" pageSize={31} className="mt-2" />
      </details>
    </Section>
  );
}

/** This month's allocation and when it runs out at the last week's pace. */
export function MonthCredits({ overview }: { overview: Overview }) {
  const path = useOrgPath();
  const { month } = overview;
  return (
    <Section title={`Credits in ${formatMonth(month.month)}`} actions={<Link href={path("/credits")}>Usage by agent and day →</Link>}>
      <StatGrid>
        <StatCard testId="month-allocated" label="Allocated" value={month.allocatedCredits?.toLocaleString() ?? "—"} />
        <StatCard testId="month-spent" label="Spent" value={month.spentCredits.toLocaleString()} />
        <StatCard testId="month-remaining" label="Remaining" value={month.remainingCredits?.toLocaleString() ?? "—"} />
        <StatCard testId="month-used" label="Used" value={`${month.percentageUsed ?? 0}%`} />
      </StatGrid>
      <p className="mt-3" data-testid="credits-forecast">
        {month.runsOutOn === null
          ? "Nothing was spent in the last 7 days: no forecast."
          : month.runsOutBeforeMonthEnd
            ? `At the last 7 days' pace (${month.dailyBurn.toLocaleString()} credits a day), the allocation runs out on ${formatUtcDay(month.runsOutOn, { year: true })}, before the month ends.`
            : `At the last 7 days' pace (${month.dailyBurn.toLocaleString()} credits a day), the allocation lasts the month.`}
      </p>
    </Section>
  );
}

/** Paused agents that still have calls waiting, and credits running low. (Failing webhooks: FailingEndpointsAlert.) */
export function OverviewAlerts({ overview }: { overview: Overview }) {
  const path = useOrgPath();
  const { pausedAgents, lowCredits } = overview.alerts;
  return (
    <>
      {pausedAgents.length > 0 && (
        <Alert tone="warning" data-testid="paused-agents">
          <p className="font-semibold">
            {pausedAgents.length === 1 ? "A paused agent has calls waiting" : `${pausedAgents.length} paused agents have calls waiting`}: they will not be
            dialed until the agent is resumed.
          </p>
          <ul className="mt-1 flex flex-col gap-1">
            {pausedAgents.map((agent) => (
              <li key={agent.agentId}>
                <Link href={path(`/agents/${encodeURIComponent(agent.agentId)}`)} className="font-semibold underline">
                  {agent.name}
                </Link>
                : {plural(agent.pendingCalls, "call")} waiting; paused {agent.pauseSource === "auto-pause" ? "automatically" : "by a person"}
                {agent.pausedAt && (
                  <>
                    {" "}
                    on <LocalTime iso={agent.pausedAt} />
                  </>
                )}
                {agent.pauseReason ? `: ${agent.pauseReason}` : " (no reason given)"}.
              </li>
            ))}
          </ul>
        </Alert>
      )}
      {lowCredits && (
        <Alert tone="warning" data-testid="low-credits">
          <p className="font-semibold">Credits are running low</p>
          <p>
            {overview.month.remainingCredits?.toLocaleString()} of {overview.month.allocatedCredits?.toLocaleString()} credits left this month
            {overview.month.runsOutOn ? `; at the current pace they run out on ${formatUtcDay(overview.month.runsOutOn, { year: true })}` : ""}. Calls stop when
            they are gone. <Link href={path("/credits")}>See usage →</Link>
          </p>
        </Alert>
      )}
    </>
  );
}

const callCol = columnsFor<RecentCall>();

/** The latest calls that ended, newest first. */
export function RecentCalls({ overview }: { overview: Overview }) {
  const path = useOrgPath();
  const columns = useMemo(
    () => [
    callCol.accessor("contactName", {
      header: "Contact",
      cell: ({ row }) => <Link href={path(`/calls/${encodeURIComponent(row.original.callId)}`)}>{row.original.contactName}</Link>,
    }),
    callCol.accessor("agentName", { header: "Agent" }),
    callCol.accessor("resultType", { header: "Result", cell: ({ getValue }) => <ResultBadge resultType={getValue()} /> }),
    callCol.accessor("durationSeconds", { header: "Duration", cell: ({ getValue }) => <Duration seconds={getValue()} />, meta: { numeric: true } }),
    callCol.accessor("endedAt", { header: "Ended", cell: ({ row }) => <ZonedTime iso={row.original.endedAt} contactZone={row.original.timezone} stacked /> }),
    ],
    [path],
  );
  return (
    <Section title="Recent calls" actions={<Link href={path("/conversations")}>All conversations →</Link>}>
      {overview.recentCalls.length === 0 ? (
        <p className="text-muted-foreground">No calls yet.</p>
      ) : (
        <DataTable columns={columns} data={overview.recentCalls} getRowId={(c) => c.callId} caption="Recent calls" pageSize={10} testId="recent-calls" />
      )}
    </Section>
  );
}
