"use client";

import { useQuery } from "@tanstack/react-query";
import dynamic from "next/dynamic";
import { useState, type FormEvent } from "react";
import { useTRPC } from "@/server/trpc/client/react";
import { EmptyState, ErrorState, Loading, PageHeader } from "../../../_components/states";

const DailySpendChart = dynamic(() => import("./daily-spend-chart"), { ssr: false, loading: () => <Loading label="Loading chart…" /> });

type Query = { month?: string; startDate?: string; endDate?: string };

function utcToday(): string {
  return new Date().toISOString().slice(0, 10);
}
function utcDaysAgo(days: number): string {
  return new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 10);
}

async function downloadCsv(filename: string, rows: Array<Record<string, string | number | null>>) {
  const { unparse } = await import("papaparse");
  const blob = new Blob([unparse(rows)], { type: "text/csv;charset=utf-8" });
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = filename;
  document.body.appendChild(link);
  link.click();
  link.remove();
  URL.revokeObjectURL(url);
}

export function CreditsView() {
  const trpc = useTRPC();
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

  return (
    <>
      <PageHeader title="Credits" description="One credit per started minute of a connected call. Periods are UTC days, as in GET /credits/usage." />
      <section className="panel" aria-label="Period">
        <fieldset style={{ border: "none", padding: 0, margin: "0 0 12px" }}>
          <legend className="label-text">Period</legend>
          <div className="actions">
            <label className="checkbox">
              <input type="radio" name="mode" checked={mode === "month"} onChange={() => setMode("month")} /> Billing month
            </label>
            <label className="checkbox">
              <input type="radio" name="mode" checked={mode === "range"} onChange={() => setMode("range")} /> Custom range
            </label>
          </div>
        </fieldset>
        {mode === "month" ? (
          <div className="field" style={{ maxWidth: 240 }}>
            <label htmlFor="month">Month</label>
            <input id="month" type="month" value={month} max={currentMonth} onChange={(e) => e.target.value && setMonth(e.target.value)} />
          </div>
        ) : (
          <form className="row" onSubmit={applyRange}>
            <div className="field">
              <label htmlFor="start-date">From (inclusive)</label>
              <input
                id="start-date"
                type="date"
                value={rangeDraft.startDate}
                max={utcToday()}
                onChange={(e) => setRangeDraft((r) => ({ ...r, startDate: e.target.value }))}
              />
            </div>
            <div className="field">
              <label htmlFor="end-date">To (inclusive)</label>
              <input
                id="end-date"
                type="date"
                value={rangeDraft.endDate}
                max={utcToday()}
                onChange={(e) => setRangeDraft((r) => ({ ...r, endDate: e.target.value }))}
              />
            </div>
            <div className="field" style={{ flex: "0 0 auto" }}>
              <button type="submit" className="btn btn-primary">
                Show range
              </button>
            </div>
            <p className="hint" style={{ flexBasis: "100%", margin: 0 }}>
              At most 366 days; the end cannot be in the future.
            </p>
          </form>
        )}
      </section>

      {usage.isPending ? (
        <Loading />
      ) : usage.isError ? (
        <ErrorState error={usage.error} retry={() => void usage.refetch()} />
      ) : (
        <>
          <div className="grid" data-testid="credit-stats">
            {usage.data.organization.allocatedCredits !== null && (
              <div className="stat">
                <div className="label">Allocated</div>
                <div className="value" data-testid="allocated">{usage.data.organization.allocatedCredits.toLocaleString()}</div>
              </div>
            )}
            <div className="stat">
              <div className="label">Spent</div>
              <div className="value" data-testid="spent">{usage.data.organization.spentCredits.toLocaleString()}</div>
            </div>
            {usage.data.organization.remainingCredits !== null && (
              <div className="stat">
                <div className="label">Remaining</div>
                <div className="value" data-testid="remaining">{usage.data.organization.remainingCredits.toLocaleString()}</div>
              </div>
            )}
            {usage.data.organization.percentageUsed !== null && (
              <div className="stat">
                <div className="label">Used</div>
                <div className="value">{usage.data.organization.percentageUsed}%</div>
                <progress max={100} value={Math.min(100, usage.data.organization.percentageUsed)} aria-label="Share of the allocation used" style={{ width: "100%" }} />
              </div>
            )}
          </div>
          <p className="hint" data-testid="period">
            {usage.data.period.type === "month" ? `Billing month ${usage.data.period.month}` : "Custom range"}: {usage.data.period.startDate} to{" "}
            {usage.data.period.endDate} (UTC).
            {usage.data.period.type === "range" && " Allocation figures apply to billing months only."}
          </p>

          <h2>Daily spend</h2>
          {daily.isPending ? (
            <Loading label="Loading daily spend…" />
          ) : daily.isError ? (
            <ErrorState error={daily.error} retry={() => void daily.refetch()} />
          ) : (
            <>
              <div className="panel chart-box" role="img" aria-label={`Bar chart of credits spent per day, ${daily.data.days.length} days`}>
                <DailySpendChart days={daily.data.days} />
              </div>
              <details>
                <summary>Daily spend as a table</summary>
                <div className="table-wrap">
                  <table>
                    <thead>
                      <tr>
                        <th scope="col">Day (UTC)</th>
                        <th scope="col" className="num">
                          Credits
                        </th>
                      </tr>
                    </thead>
                    <tbody>
                      {daily.data.days.map((d) => (
                        <tr key={d.date}>
                          <td>{d.date}</td>
                          <td className="num">{d.spentCredits}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
              </details>
            </>
          )}

          <div className="page-header" style={{ marginTop: 24 }}>
            <h2 style={{ margin: 0 }}>By agent</h2>
            <div className="actions">
              <button
                type="button"
                className="btn btn-small"
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
              </button>
              <button
                type="button"
                className="btn btn-small"
                disabled={!daily.data}
                onClick={() => daily.data && void downloadCsv(`credits-by-day-${periodLabel}.csv`, daily.data.days)}
              >
                Export CSV (by day)
              </button>
            </div>
          </div>
          {usage.data.agents.length === 0 ? (
            <EmptyState title="No credits spent in this period" />
          ) : (
            <div className="table-wrap">
              <table data-testid="agent-breakdown">
                <thead>
                  <tr>
                    <th scope="col">Agent</th>
                    <th scope="col" className="num">
                      Credits
                    </th>
                    <th scope="col" className="num">
                      Charged calls
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {usage.data.agents.map((a) => (
                    <tr key={a.agentId}>
                      <td>
                        {a.agentName || <span className="hint">(deleted agent)</span>}
                        <div className="hint mono">{a.agentId}</div>
                      </td>
                      <td className="num">{a.spentCredits.toLocaleString()}</td>
                      <td className="num">{a.transactionCount.toLocaleString()}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </>
      )}
    </>
  );
}
