"use client";

import { useInfiniteQuery, useQuery } from "@tanstack/react-query";
import { Fragment, useState } from "react";
import { useTRPC } from "@/server/trpc/client/react";
import { LocalTime } from "../../../_components/local-time";
import { useOrg } from "../../../_components/org-context";
import { EmptyState, ErrorState, Loading, PageHeader } from "../../../_components/states";

type Status = "queued" | "running" | "completed" | "failed" | "cancelled";
type Scope = "organization" | "all";
const BADGE: Record<Status, string> = { queued: "badge-muted", running: "badge-warn", completed: "badge-ok", failed: "badge-danger", cancelled: "badge-muted" };

function OutputCell({ output, redacted }: { output: unknown; redacted: boolean }) {
  if (redacted) return <span className="hint">hidden (not provably about this organization)</span>;
  if (output === null || output === undefined) return <>—</>;
  return (
    <details>
      <summary>Show</summary>
      <pre style={{ whiteSpace: "pre-wrap", maxWidth: 480 }}>{JSON.stringify(output, null, 2)}</pre>
    </details>
  );
}

function RunDetail({ runId, scope }: { runId: string; scope: Scope }) {
  const trpc = useTRPC();
  const run = useQuery(trpc.jobs.getRun.queryOptions({ runId, scope }));
  if (run.isPending) return <Loading rows={2} />;
  if (run.isError) return <ErrorState error={run.error} retry={() => void run.refetch()} />;
  return (
    <div>
      {run.data.error && (
        <div className="alert alert-error">
          <strong>{run.data.error.name}:</strong> {run.data.error.message}
          {run.data.error.stack && (
            <details>
              <summary>Stack</summary>
              <pre style={{ whiteSpace: "pre-wrap" }}>{run.data.error.stack}</pre>
            </details>
          )}
        </div>
      )}
      <h3>Output</h3>
      <OutputCell output={run.data.output} redacted={run.data.outputRedacted} />
      <h3>Steps</h3>
      {run.data.steps.length === 0 ? (
        <p className="hint">No steps yet.</p>
      ) : (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Step</th>
                <th scope="col">Op</th>
                <th scope="col">Status</th>
                <th scope="col" className="num">
                  Failed attempts
                </th>
                <th scope="col">Wakes / waits</th>
                <th scope="col">Output</th>
                <th scope="col">Error</th>
              </tr>
            </thead>
            <tbody>
              {run.data.steps.map((step) => (
                <tr key={step.hashedId}>
                  <td className="mono">{step.name || step.stepId}</td>
                  <td>{step.op}</td>
                  <td>{step.status}</td>
                  <td className="num">{step.attempts}</td>
                  <td>
                    {step.wakeAt && <LocalTime iso={step.wakeAt} />}
                    {step.waitEvent && <div className="hint">event {step.waitEvent}</div>}
                  </td>
                  <td>
                    <OutputCell output={step.output} redacted={step.outputRedacted} />
                  </td>
                  <td>{step.error ? `${step.error.name}: ${step.error.message}` : "—"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <h3>Attempts</h3>
      <div className="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">Started</th>
              <th scope="col">Step</th>
              <th scope="col" className="num">
                Attempt
              </th>
              <th scope="col">Outcome</th>
              <th scope="col" className="num">
                Time
              </th>
              <th scope="col">Error</th>
            </tr>
          </thead>
          <tbody>
            {run.data.attempts.map((attempt, i) => (
              <tr key={i}>
                <td>
                  <LocalTime iso={attempt.startedAt} />
                </td>
                <td className="mono">{attempt.stepName ?? attempt.stepId}</td>
                <td className="num">{attempt.attempt}</td>
                <td>
                  {attempt.outcome}
                  {attempt.httpStatus !== null && ` (HTTP ${attempt.httpStatus})`}
                </td>
                <td className="num">{attempt.durationMs} ms</td>
                <td>{attempt.error ? `${attempt.error.name}: ${attempt.error.message}` : "—"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}

export function JobsView({ operator }: { operator: boolean }) {
  const trpc = useTRPC();
  const org = useOrg();
  const [status, setStatus] = useState<Status | "">("");
  const [scope, setScope] = useState<Scope>("organization");
  const [open, setOpen] = useState<string | null>(null);
  const runs = useInfiniteQuery(
    trpc.jobs.listRuns.infiniteQueryOptions(
      { status: status || undefined, limit: 50, scope },
      { getNextPageParam: (page) => page.nextCursor ?? undefined },
    ),
  );
  const failed = useQuery(trpc.jobs.listRuns.queryOptions({ status: "failed", limit: 1, scope }));
  const rows = runs.data?.pages.flatMap((page) => page.runs) ?? [];

  return (
    <>
      <PageHeader
        title="Jobs"
        description={
          scope === "all"
            ? "Every background run of this server, system runs (watchdog, retention, resume sweeps) included, unredacted: operators only."
            : `Background runs about ${org.name}'s sequences, calls, bulk imports and webhook deliveries, with their attempts, errors and next wake time.`
        }
        actions={
          <button type="button" className="btn btn-small" onClick={() => void runs.refetch()} disabled={runs.isFetching}>
            {runs.isFetching ? "Refreshing…" : "Refresh"}
          </button>
        }
      />
      {failed.data && failed.data.runs.length > 0 && status !== "failed" && (
        <div className="alert alert-error" role="status">
          There are failed runs.{" "}
          <button type="button" className="btn btn-small" onClick={() => setStatus("failed")}>
            Show failed runs
          </button>
        </div>
      )}
      <div className="row">
        {operator && (
          <div className="field" style={{ maxWidth: 240 }}>
            <label htmlFor="run-scope">Scope</label>
            <select id="run-scope" value={scope} onChange={(e) => setScope(e.target.value as Scope)}>
              <option value="organization">This organization</option>
              <option value="all">All organizations (operator)</option>
            </select>
          </div>
        )}
        <div className="field" style={{ maxWidth: 240 }}>
          <label htmlFor="run-status">Status</label>
          <select id="run-status" value={status} onChange={(e) => setStatus(e.target.value as Status | "")}>
            <option value="">All</option>
            <option value="failed">Failed</option>
            <option value="running">Running</option>
            <option value="queued">Queued</option>
            <option value="completed">Completed</option>
            <option value="cancelled">Cancelled</option>
          </select>
        </div>
      </div>
      {runs.isPending ? (
        <Loading />
      ) : runs.isError ? (
        <ErrorState error={runs.error} retry={() => void runs.refetch()} />
      ) : rows.length === 0 ? (
        <EmptyState title={status ? `No ${status} runs` : "No runs yet"} />
      ) : (
        <>
          <div className="table-wrap">
            <table data-testid="runs">
              <caption className="visually-hidden">Background runs, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Function</th>
                  <th scope="col">Status</th>
                  <th scope="col">Started by</th>
                  <th scope="col">Created</th>
                  <th scope="col">Next wake</th>
                  <th scope="col" className="num">
                    Retries
                  </th>
                  <th scope="col">Error</th>
                  <th scope="col">
                    <span className="visually-hidden">Details</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {rows.map((run) => (
                  <Fragment key={run.runId}>
                    <tr style={run.status === "failed" ? { background: "var(--danger-bg)" } : undefined}>
                      <td>
                        {run.functionName}
                        <div className="hint mono">{run.runId}</div>
                      </td>
                      <td>
                        <span className={`badge ${BADGE[run.status]}`}>{run.status}</span>
                      </td>
                      <td className="mono">{run.eventName}</td>
                      <td>
                        <LocalTime iso={run.createdAt} />
                      </td>
                      <td>{run.nextWakeAt ? <LocalTime iso={run.nextWakeAt} /> : "—"}</td>
                      <td className="num">{run.failedAttempts}</td>
                      <td>{run.error ? `${run.error.name}: ${run.error.message}` : "—"}</td>
                      <td>
                        <button type="button" className="btn btn-small" aria-expanded={open === run.runId} onClick={() => setOpen(open === run.runId ? null : run.runId)}>
                          {open === run.runId ? "Hide" : "Details"}
                        </button>
                      </td>
                    </tr>
                    {open === run.runId && (
                      <tr>
                        <td colSpan={8}>
                          <RunDetail runId={run.runId} scope={scope} />
                        </td>
                      </tr>
                    )}
                  </Fragment>
                ))}
              </tbody>
            </table>
          </div>
          {runs.hasNextPage && (
            <button type="button" className="btn btn-small" style={{ marginTop: 8 }} disabled={runs.isFetchingNextPage} onClick={() => void runs.fetchNextPage()}>
              {runs.isFetchingNextPage ? "Loading…" : "Load older runs"}
            </button>
          )}
        </>
      )}
    </>
  );
}
