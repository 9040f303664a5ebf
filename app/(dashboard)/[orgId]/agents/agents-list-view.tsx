"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect, useState } from "react";
import { useTRPC } from "@/server/trpc/client/react";
import { LocalTime } from "../../../_components/local-time";
import { useCan, useOrgPath } from "../../../_components/org-context";
import { EmptyState, ErrorState, Loading, PageHeader } from "../../../_components/states";
import { CancelByReferenceForm } from "./cancel-by-reference-form";

type Status = "ACTIVE" | "PAUSED" | "ARCHIVED";

export function AgentsListView() {
  const trpc = useTRPC();
  const can = useCan();
  const path = useOrgPath();
  const [searchInput, setSearchInput] = useState("");
  const [search, setSearch] = useState("");
  const [status, setStatus] = useState<Status | "">("");
  const [page, setPage] = useState(1);
  useEffect(() => {
    const timer = setTimeout(() => {
      setSearch(searchInput.trim());
      setPage(1);
    }, 250);
    return () => clearTimeout(timer);
  }, [searchInput]);
  const agents = useQuery({
    ...trpc.agents.listForConsole.queryOptions({ page, search: search || undefined, status: status || undefined }),
    placeholderData: keepPreviousData,
  });

  return (
    <>
      <PageHeader
        title="Agents"
        description="Agents call your contacts through their sequence of steps."
        actions={
          can.admin && (
            <Link className="btn btn-primary" href={path("/agents/new")}>
              New agent
            </Link>
          )
        }
      />
      <div className="row" role="search" style={{ marginBottom: 8 }}>
        <div className="field">
          <label htmlFor="agent-search">Search</label>
          <input id="agent-search" type="search" placeholder="Name or agent ID" value={searchInput} onChange={(e) => setSearchInput(e.target.value)} />
        </div>
        <div className="field" style={{ flex: "0 1 200px" }}>
          <label htmlFor="agent-status-filter">Status</label>
          <select
            id="agent-status-filter"
            value={status}
            onChange={(e) => {
              setStatus(e.target.value as Status | "");
              setPage(1);
            }}
          >
            <option value="">All</option>
            <option value="ACTIVE">Active</option>
            <option value="PAUSED">Paused</option>
            <option value="ARCHIVED">Archived</option>
          </select>
        </div>
      </div>
      {agents.isPending ? (
        <Loading />
      ) : agents.isError ? (
        <ErrorState error={agents.error} retry={() => void agents.refetch()} />
      ) : agents.data.agents.length === 0 ? (
        <EmptyState title={search || status ? "No agents match these filters" : "No agents yet"}>
          {can.admin && !search && !status && <Link href={path("/agents/new")}>Create the first agent</Link>}
        </EmptyState>
      ) : (
        <>
          <div className="table-wrap" aria-busy={agents.isFetching}>
            <table>
              <caption className="visually-hidden">Agents</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Status</th>
                  <th scope="col">Timezone</th>
                  <th scope="col" className="num">
                    Steps
                  </th>
                  <th scope="col">Updated</th>
                </tr>
              </thead>
              <tbody>
                {agents.data.agents.map((agent) => (
                  <tr key={agent.agentId}>
                    <td>
                      <Link href={path(`/agents/${encodeURIComponent(agent.agentId)}`)}>{agent.name}</Link>
                      <div className="hint mono">{agent.agentId}</div>
                    </td>
                    <td>
                      <span className={`badge badge-${agent.status}`}>{agent.status}</span>
                    </td>
                    <td>{agent.timezone ?? "—"}</td>
                    <td className="num">{agent.stepCount}</td>
                    <td>
                      <LocalTime iso={agent.updatedAt} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <nav className="actions" aria-label="Pages" style={{ marginTop: 12 }}>
            <button type="button" className="btn btn-small" disabled={page <= 1} onClick={() => setPage((p) => p - 1)}>
              Previous
            </button>
            <span>
              Page {agents.data.pagination.page} of {Math.max(1, agents.data.pagination.totalPages)} ({agents.data.pagination.totalItems} agents)
            </span>
            <button type="button" className="btn btn-small" disabled={page >= agents.data.pagination.totalPages} onClick={() => setPage((p) => p + 1)}>
              Next
            </button>
          </nav>
        </>
      )}
      {can.admin && (
        <section className="panel" aria-labelledby="cancel-by-reference" style={{ marginTop: 24 }}>
          <h2 id="cancel-by-reference" style={{ marginTop: 0 }}>
            Cancel sequences by reference
          </h2>
          <p className="hint">Cancels every in-progress sequence of the organization, any agent, whose custom input variable has this value (POST /sequences/cancel).</p>
          <CancelByReferenceForm />
        </section>
      )}
    </>
  );
}
