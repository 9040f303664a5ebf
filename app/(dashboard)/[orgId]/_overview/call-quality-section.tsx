"use client";

import Link from "next/link";
import { useMemo } from "react";
import { useOrgPath } from "../../../_components/org-context";
import { Section } from "../../../_components/ui/card";
import { columnsFor, DataTable } from "../../../_components/ui/data-table";
import { StatCard, StatGrid } from "../../../_components/ui/stat-card";
import { LocalTime } from "../../../_components/ui/time";
import type { Overview } from "./overview-sections";

type Quality = Overview["callQuality"];
type AgentQuality = Quality["agents"][number];
type SlowCall = Quality["slowCalls"]["calls"][number];

const ms = (value: number | null | undefined) => (value === null || value === undefined ? "—" : `${Math.round(value).toLocaleString()} ms`);
const pair = (value: { p50: number; p95: number } | null) => (value ? `${ms(value.p50)} / ${ms(value.p95)}` : "—");

const ANSWERED_BY_LABELS: Record<Quality["answeredBy"][number]["answeredBy"], string> = {
  human: "Person",
  machine: "Voicemail",
  fax: "Fax",
  ivr: "Phone menu",
  screener: "Call screener",
  unknown: "Unknown",
};

/** Weighted over the agents' turns (calls): the period's figure when one number is wanted on a tile. */
function overall(agents: AgentQuality[], pick: (agent: AgentQuality) => { p50: number; p95: number } | null, weight: (agent: AgentQuality) => number) {
  const rows = agents.map((agent) => ({ value: pick(agent), weight: weight(agent) })).filter((row) => row.value && row.weight > 0);
  const total = rows.reduce((sum, row) => sum + row.weight, 0);
  if (total === 0) return null;
  return { p50: rows.reduce((sum, row) => sum + row.value!.p50 * row.weight, 0) / total, p95: Math.max(...rows.map((row) => row.value!.p95)) };
}

const agentCol = columnsFor<AgentQuality>();
const slowCol = columnsFor<SlowCall>();

/**
 * Call quality over the period (docs/call-quality.md): response latency and greeting delay per agent (p50 / p95), who
 * answered, and the calls slower than the configured threshold, each linked to its call page.
 */
export function CallQualitySection({ overview }: { overview: Overview }) {
  const path = useOrgPath();
  const quality = overview.callQuality;
  const response = overall(quality.agents, (agent) => agent.responseMs, (agent) => agent.turns);
  const greeting = overall(quality.agents, (agent) => agent.greetingMs, (agent) => agent.calls);
  const measured = quality.answeredBy.reduce((sum, row) => sum + row.calls, 0);
  const agentColumns = useMemo(
    () => [
      agentCol.accessor("name", { header: "Agent", cell: ({ row }) => <Link href={path(`/agents/${encodeURIComponent(row.original.agentId)}`)}>{row.original.name}</Link> }),
      agentCol.accessor("calls", { header: "Calls measured", meta: { numeric: true } }),
      agentCol.accessor("turns", { header: "Turns", meta: { numeric: true } }),
      agentCol.accessor("responseMs", { header: "Response p50 / p95", cell: ({ getValue }) => pair(getValue()), meta: { numeric: true } }),
      agentCol.accessor("greetingMs", { header: "Greeting p50 / p95", cell: ({ getValue }) => pair(getValue()), meta: { numeric: true } }),
    ],
    [path],
  );
  const slowColumns = useMemo(
    () => [
      slowCol.accessor("contactName", { header: "Contact", cell: ({ row }) => <Link href={path(`/calls/${encodeURIComponent(row.original.callId)}`)}>{row.original.contactName}</Link> }),
      slowCol.accessor("agentName", { header: "Agent" }),
      slowCol.accessor("responseP95Ms", { header: "Response p95", cell: ({ getValue }) => ms(getValue()), meta: { numeric: true } }),
      slowCol.accessor("endedAt", { header: "Ended", cell: ({ getValue }) => <LocalTime iso={getValue()} /> }),
    ],
    [path],
  );
  return (
    <Section title="Call quality">
      <div className="flex flex-col gap-4" data-testid="call-quality">
        <StatGrid>
          <StatCard testId="quality-response" label="Response latency p50 / p95" value={pair(response)} hint="End of the contact's speech to the agent's first audio" />
          <StatCard testId="quality-greeting" label="Greeting delay p50 / p95" value={pair(greeting)} hint="Answer to the agent's first audio" />
          <StatCard
            testId="quality-answered-by"
            label="Answered by a person"
            value={measured > 0 ? `${quality.answeredBy.find((row) => row.answeredBy === "human")!.share}%` : "—"}
            hint={quality.answeredBy
              .filter((row) => row.answeredBy !== "human" && row.calls > 0)
              .map((row) => `${ANSWERED_BY_LABELS[row.answeredBy]} ${row.share}%`)
              .join(" · ") || `${measured.toLocaleString()} calls measured`}
          />
          <StatCard
            testId="quality-slow-calls"
            label={`Calls over ${quality.latencyThresholdMs.toLocaleString()} ms`}
            value={quality.slowCalls.total.toLocaleString()}
            hint={quality.slowCalls.total > 0 ? <a href="#slow-calls">See the calls ↓</a> : "p95 response latency per call"}
          />
        </StatGrid>
        {quality.agents.length > 0 && <DataTable columns={agentColumns} data={quality.agents} getRowId={(agent) => agent.agentId} caption="Call quality per agent" testId="quality-agents" />}
        <div className="flex flex-wrap gap-2" data-testid="quality-answered-by-shares">
          {quality.answeredBy.map((row) => (
            <span key={row.answeredBy} className="rounded border border-border px-2 py-1 text-sm">
              {ANSWERED_BY_LABELS[row.answeredBy]}: {row.calls.toLocaleString()}
              {row.share !== null ? ` (${row.share}%)` : ""}
            </span>
          ))}
        </div>
        {quality.slowCalls.calls.length > 0 && (
          <div id="slow-calls">
            <DataTable columns={slowColumns} data={quality.slowCalls.calls} getRowId={(call) => call.callId} caption={`Calls whose p95 response latency is over ${quality.latencyThresholdMs.toLocaleString()} ms, slowest first`} testId="quality-slow-calls-table" />
          </div>
        )}
      </div>
    </Section>
  );
}
