"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { useTRPC } from "@/server/trpc/client/react";

/**
 * Chooses an agent by name: a search box over the organization's agents (25 at a time, as the agents page lists them)
 * and a select of the matches. Picks the first match when nothing is chosen yet.
 */
export function AgentPicker({
  id,
  value,
  onChange,
  excludeArchived = false,
  label = "Agent",
}: {
  id: string;
  value: string;
  onChange: (agentId: string) => void;
  excludeArchived?: boolean;
  label?: string;
}) {
  const trpc = useTRPC();
  const [searchInput, setSearchInput] = useState("");
  const [search, setSearch] = useState("");
  useEffect(() => {
    const timer = setTimeout(() => setSearch(searchInput.trim()), 250);
    return () => clearTimeout(timer);
  }, [searchInput]);
  const agents = useQuery({ ...trpc.agents.listForConsole.queryOptions({ page: 1, search: search || undefined }), placeholderData: keepPreviousData });
  const options = (agents.data?.agents ?? []).filter((agent) => !excludeArchived || agent.status !== "ARCHIVED");
  const selected = agents.data?.agents.find((agent) => agent.agentId === value);

  useEffect(() => {
    if (!value && options.length > 0) onChange(options[0]!.agentId);
  }, [value, options, onChange]);

  return (
    <div className="row" style={{ flex: "2 1 320px" }}>
      <div className="field">
        <label htmlFor={`${id}-search`}>Find agent</label>
        <input id={`${id}-search`} type="search" placeholder="Name or agent ID" value={searchInput} onChange={(e) => setSearchInput(e.target.value)} />
      </div>
      <div className="field">
        <label htmlFor={id}>{label}</label>
        <select id={id} value={value} onChange={(e) => onChange(e.target.value)} aria-busy={agents.isFetching} disabled={agents.isPending}>
          {agents.isPending && <option value="">Loading agents…</option>}
          {value && !selected && !agents.isPending && <option value={value}>{value}</option>}
          {!agents.isPending && options.length === 0 && <option value="">No matching agent</option>}
          {options.map((agent) => (
            <option key={agent.agentId} value={agent.agentId}>
              {agent.name}
              {agent.status !== "ACTIVE" ? ` (${agent.status.toLowerCase()})` : ""}
            </option>
          ))}
        </select>
        {agents.isError && (
          <span className="hint" role="alert">
            Could not load agents.
          </span>
        )}
        {agents.data && agents.data.pagination.totalItems > agents.data.agents.length && (
          <span className="hint">
            {agents.data.agents.length} of {agents.data.pagination.totalItems} shown: type to narrow.
          </span>
        )}
      </div>
    </div>
  );
}
