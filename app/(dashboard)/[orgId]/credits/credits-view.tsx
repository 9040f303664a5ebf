"use client";

import { useQuery } from "@tanstack/react-query";
import dynamic from "next/dynamic";
import Link from "next/link";
import { useMemo, useState, type FormEvent } from "react";
import { useTRPC } from "@/server/trpc/client/react";
import { downloadCsv } from "../../../_components/download-csv";
import { useOrgPath } from "../../../_components/org-context";
import type { RouterOutputs } from "../../../_components/router-types";
import { Button } from "../../../_components/ui/button";
import { Section } from "../../../_components/ui/card";
import { columnsFor, DataTable } from "../../../_components/ui/data-table";
import { Field, FieldSet } from "../../../_components/ui/field";
import { formatMonth, formatUtcDay } from "../../../_components/ui/format";
import { Input } from "../../../_components/ui/input";
import { PageHeader } from "../../../_components/ui/page-header";
import { StatCard, StatGrid } from "../../../_components/ui/stat-card";
import { ErrorState, Loading } from "../../../_components/ui/states";

const DailySpendChart = dynamic(() => import("./daily-spend-chart"), { ssr: false, loading: () => <Loading label="Loading chart…" /> });

type Query = { month?: string; startDate?: string; endDate?: string };
type AgentUsage = RouterOutputs["credits"]["usage"]["agents"][number];
type Day = RouterOutputs["credits"]["dailySpend"]["days"][number];

function utcToday(): string {
  return new Date().toISOString().slice(0, 10);
}
function utcDaysAgo(days: number): string {
  return new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 10);
}

const dayCol = columnsFor<Day>();
const dayColumns = [
  dayCol.accessor("date", { header: "Day (UTC)", cell: ({ getValue }) => formatUtcDay(getValue()) }),
  dayCol.accessor("spentCredits", { header: "Credits", meta: { numeric: true } }),
];
const agentCol = columnsFor<AgentUsage>();

export function CreditsView() {
  const trpc = useTRPC();
  const path = useOrgPath();
  const currentMonth = utcToday().slice(0, 7);
  const [mode, setMode] = useState<"month" | "range">("month");
  const [month, setMonth] = useState(currentMonth);
  const [rangeDraft, setRangeDraft] = useState({ startDate: utcDaysAgo(29), endDate: utcToday() });
  const [range, setRange] = useState(rangeDraft);
  const query: Query = mode === "month" ? { month } : range;
  const usage = useQuery(trpc.credits.usage.queryOptions(query));
  const daily = useQuery(trpc.credits.dailySpend.queryOptions(query));

  function applyRange(event: FormEvent) {
    event.preventDefault();
    setRange(rangeDraft);
  }

  const periodLabel = mode === "month" ? month : `${range.startDate}_to_${range.endDate}`;
  const agentColumns = useMemo(
    () => [
      agentCol.accessor("agentName", {
        header: "Agent",
        cell: ({ row }) =>
          row.original.agentName ? (
            <Link href={path(`/agents/${encodeURIComponent(row.original.agentId)}`)}>{row.original.agentName}</Link>
          ) : (
            <span className="text-muted-foreground">(deleted agent)</span>
          ),
      }),
      agentCol.accessor("spentCredits", { header: "Credits", meta: { numeric: true }, cell: ({ getValue }) => getValue().toLocaleString() }),
      agentCol.accessor("transactionCount", { header: "Charged calls", meta: { numeric: true }, cell: ({ getValue }) => getValue().toLocaleString() }),
    ],
    [path],
  );

  return (
    <div className="flex flex-col gap-4">
      <PageHeader title="Credits" description="One credit per started minute of a connected call. Periods are whole days in UTC, as the API counts them." />
      <Section title="Period">
        <FieldSet legend="Show" className="mb-3">
          <div className="flex flex-wrap gap-x-5 gap-y-2">
            <label className="inline-flex items-center gap-2 font-medium">
              <input type="radio" name="mode" className="size-4 accent-primary" checked={mode === "month"} onChange={() => setMode("month")} /> Billing month
            </label>
            <label className="inline-flex items-center gap-2 font-medium">
              <input type="radio" name="mode" className="size-4 accent-primary" checked={mode === "range"} onChange={() => setMode("range")} /> Custom range
            </label>
          </div>
        </FieldSet>
        {mode === "month" ? (
          <Field label="Month" id="month" className="max-w-60">
            <Input type="month" value={month} max={currentMonth} onChange={(e) => e.target.value && setMonth(e.target.value)} />
          </Field>
        ) : (
          <form className="grid grid-cols-1 items-end gap-3 sm:grid-cols-[minmax(0,14rem)_minmax(0,14rem)_auto]" onSubmit={applyRange}>
            <Field label="From (inclusive)" id="start-date">
              <Input type="date" value={rangeDraft.startDate} max={utcToday()} onChange={(e) => setRangeDraft((r) => ({ ...r, startDate: e.target.value }))} />
            </Field>
            <Field label="To (inclusive)" id="end-date">
              <Input type="date" value={rangeDraft.endDate} max={utcToday()} onChange={(e) => setRangeDraft((r) => ({ ...r, endDate: e.target.value }))} />
            </Field>
            <Button type="submit" variant="primary">
              Show range
            </Button>
            <p className="text-sm text-muted-foreground sm:col-span-3">At most 366 days; the end cannot be in the future.</p>
          </form>
        )}
      </Section>

      {usage.isPending ? (
        <Loading />
      ) : usage.isError ? (
        <ErrorState error={usage.error} retry={() => void usage.refetch()} />
      ) : (
        <>
          <StatGrid>
            {usage.data.organization.allocatedCredits !== null && (
              <StatCard label="Allocated" value={<span data-testid="allocated">{usage.data.organization.allocatedCredits.toLocaleString()}</span>} />
            )}
            <StatCard label="Spent" value={<span data-testid="spent">{usage.data.organization.spentCredits.toLocaleString()}</span>} />
            {usage.data.organization.remainingCredits !== null && (
              <StatCard label="Remaining" value={<span data-testid="remaining">{usage.data.organization.remainingCredits.toLocaleString()}</span>} />
            )}
            {usage.data.organization.percentageUsed !== null && (
              <StatCard
                label="Used"
                value={`${usage.data.organization.percentageUsed}%`}
                hint={
                  <progress
                    max={100}
                    value={Math.min(100, usage.data.organization.percentageUsed)}
                    aria-label="Share of the allocation used"
                    className="mt-1 h-2 w-full accent-primary"
                  />
                }
              />
            )}
          </StatGrid>
          <p className="text-sm text-muted-foreground" data-testid="period">
            {usage.data.period.type === "month" ? `Billing month ${formatMonth(usage.data.period.month ?? month)}` : "Custom range"}:{" "}
            {formatUtcDay(usage.data.period.startDate)} to {formatUtcDay(usage.data.period.endDate)} (UTC days).
            {usage.data.period.type === "range" && " Allocation figures apply to billing months only."}
          </p>

          <Section title="Daily spend">
            {daily.isPending ? (
              <Loading label="Loading daily spend…" />
            ) : daily.isError ? (
              <ErrorState error={daily.error} retry={() => void daily.refetch()} />
            ) : (
              <>
                <div className="h-64 w-full" role="img" aria-label={`Bar chart of credits spent per day, ${daily.data.days.length} days`} data-testid="daily-chart">
                  <DailySpendChart days={daily.data.days} />
                </div>
                <details className="mt-3">
                  <summary className="cursor-pointer">Daily spend as a table</summary>
                  <DataTable columns={dayColumns} data={daily.data.days} getRowId={(d) => d.date} caption="Credits spent per day (UTC)" pageSize={31} className="mt-2" />
                </details>
              </>
            )}
          </Section>

          <Section
            title="By agent"
            actions={
              <>
                <Button
                  size="sm"
                  disabled={usage.data.agents.length === 0}
                  onClick={() =>
                    void downloadCsv(
                      `credits-by-agent-${periodLabel}.csv`,
                      usage.data.agents.map((a) => ({
                        startDate: usage.data.period.startDate,
                        endDate: usage.data.period.endDate,
                        agentId: a.agentId,
                        agentName: a.agentName,
                        spentCredits: a.spentCredits,
                        transactionCount: a.transactionCount,
                      })),
                    )
                  }
                >
                  Export CSV (by agent)
                </Button>
                <Button size="sm" disabled={!daily.data} onClick={() => daily.data && void downloadCsv(`credits-by-day-${periodLabel}.csv`, daily.data.days)}>
                  Export CSV (by day)
                </Button>
              </>
            }
          >
            <DataTable
              columns={agentColumns}
              data={usage.data.agents}
              getRowId={(a) => a.agentId}
              caption="Credits spent by agent"
              testId="agent-breakdown"
              initialSorting={[{ id: "spentCredits", desc: true }]}
              empty={{ title: "No credits spent in this period" }}
            />
          </Section>
        </>
      )}
    </div>
  );
}
