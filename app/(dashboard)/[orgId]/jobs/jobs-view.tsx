"use client";

import { useInfiniteQuery, useQuery } from "@tanstack/react-query";
import { useMemo, useState } from "react";
import { useTRPC } from "@/server/trpc/client/react";
import { useOrg } from "../../../_components/org-context";
import type { RouterOutputs } from "../../../_components/router-types";
import { Alert } from "../../../_components/ui/alert";
import { Badge, type BadgeTone } from "../../../_components/ui/badge";
import { Button } from "../../../_components/ui/button";
import { columnsFor, DataTable } from "../../../_components/ui/data-table";
import { Field } from "../../../_components/ui/field";
import { NativeSelect } from "../../../_components/ui/input";
import { PageHeader } from "../../../_components/ui/page-header";
import { LocalTime } from "../../../_components/ui/time";
import { jobName, triggerName } from "./job-names";
import { RunDetail, type RunScope } from "./run-detail";

type Run = RouterOutputs["jobs"]["listRuns"]["runs"][number];
type Status = Run["status"];
const STATUS: Record<Status, { label: string; tone: BadgeTone }> = {
  queued: { label: "Queued", tone: "neutral" },
  running: { label: "Running", tone: "warning" },
  completed: { label: "Completed", tone: "success" },
  failed: { label: "Failed", tone: "danger" },
  cancelled: { label: "Cancelled", tone: "neutral" },
};
const col = columnsFor<Run>();
const columns = [
  col.accessor("functionName", {
    header: "Job",
    cell: ({ row }) => <span className="font-medium">{jobName(row.original.functionId, row.original.functionName)}</span>,
  }),
  col.accessor("status", { header: "Status", cell: ({ getValue }) => <Badge tone={STATUS[getValue()].tone}>{STATUS[getValue()].label}</Badge> }),
  col.accessor("eventName", { header: "Started by", meta: { hideBelow: "lg" }, cell: ({ getValue }) => triggerName(getValue()) }),
  col.accessor("createdAt", { header: "Created", meta: { hideBelow: "sm" }, cell: ({ getValue }) => <LocalTime iso={getValue()} /> }),
  col.accessor("nextWakeAt", { header: "Next wake", meta: { hideBelow: "lg" }, cell: ({ getValue }) => <LocalTime iso={getValue()} /> }),
  col.accessor("failedAttempts", { header: "Retries", meta: { numeric: true, hideBelow: "md" } }),
  col.accessor((run) => (run.error ? `${run.error.name}: ${run.error.message}` : ""), {
    id: "error",
    header: "Error",
    meta: { hideBelow: "md" },
    cell: ({ getValue }) => getValue() || "—",
  }),
];

export function JobsView({ operator }: { operator: boolean }) {
  const trpc = useTRPC();
  const org = useOrg();
  const [status, setStatus] = useState<Status | "">("");
  const [scope, setScope] = useState<RunScope>("organization");
  const runs = useInfiniteQuery(
    trpc.jobs.listRuns.infiniteQueryOptions(
      { status: status || undefined, limit: 50, scope },
      { getNextPageParam: (page) => page.nextCursor ?? undefined },
    ),
  );
  const failed = useQuery(trpc.jobs.listRuns.queryOptions({ status: "failed", limit: 1, scope }));
  const rows = useMemo(() => runs.data?.pages.flatMap((page) => page.runs) ?? [], [runs.data]);

  return (
    <div className="flex flex-col gap-4">
      <PageHeader
        title="Jobs"
        description={
          scope === "all"
            ? "Every background job of this server, system jobs (watchdog, retention, import resumption) included, unredacted: operators only."
            : `Background work about ${org.name}'s sequences, calls, imports and webhook deliveries: whether it worked, its retries and errors, and when it next wakes up.`
        }
        actions={
          <Button size="sm" onClick={() => void runs.refetch()} disabled={runs.isFetching}>
            {runs.isFetching ? "Refreshing…" : "Refresh"}
          </Button>
        }
      />
      {failed.data && failed.data.runs.length > 0 && status !== "failed" && (
        <Alert tone="error" role="status" className="flex flex-wrap items-center gap-2">
          <span>Some jobs failed.</span>
          <Button size="sm" onClick={() => setStatus("failed")}>
            Show failed jobs
          </Button>
        </Alert>
      )}
      <div className="grid grid-cols-1 gap-3 sm:grid-cols-[repeat(auto-fill,minmax(14rem,16rem))]">
        {operator && (
          <Field label="Scope" id="run-scope">
            <NativeSelect value={scope} onChange={(e) => setScope(e.target.value as RunScope)}>
              <option value="organization">This organization</option>
              <option value="all">All organizations (operator)</option>
            </NativeSelect>
          </Field>
        )}
        <Field label="Status" id="run-status">
          <NativeSelect value={status} onChange={(e) => setStatus(e.target.value as Status | "")}>
            <option value="">All</option>
            <option value="failed">Failed</option>
            <option value="running">Running</option>
            <option value="queued">Queued</option>
            <option value="completed">Completed</option>
            <option value="cancelled">Cancelled</option>
          </NativeSelect>
        </Field>
      </div>
      <DataTable
        columns={columns}
        data={rows}
        getRowId={(run) => run.runId}
        caption="Background jobs, newest first"
        testId="runs"
        rowTestId={() => "run-row"}
        isLoading={runs.isPending}
        error={runs.error}
        onRetry={() => void runs.refetch()}
        empty={{ title: status ? `No ${STATUS[status].label.toLowerCase()} jobs` : "No jobs yet" }}
        rowClassName={(run) => (run.status === "failed" ? "bg-danger-soft" : undefined)}
        expandable={{
          label: (run, open) => `${open ? "Hide" : "Show"} details of ${jobName(run.functionId, run.functionName)}`,
          render: (run) => <RunDetail runId={run.runId} functionId={run.functionId} eventName={run.eventName} scope={scope} />,
        }}
        loadMore={{ hasMore: Boolean(runs.hasNextPage), isLoading: runs.isFetchingNextPage, onLoadMore: () => void runs.fetchNextPage(), label: "Load older jobs" }}
      />
    </div>
  );
}
