"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { useTRPC } from "@/server/trpc/client/react";
import { Field } from "../../../../_components/ui/field";
import { Input, NativeSelect } from "../../../../_components/ui/input";

/**
 * Chooses an agent by name: a search box over the organization's agents (25 at a time, as the agents page lists them)
 * and a select of the matches. Picks the first active match when nothing is chosen yet (never an archived agent when
 * another one exists).
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
    if (!value && options.length > 0) onChange((options.find((agent) => agent.status === "ACTIVE") ?? options[0]!).agentId);
  }, [value, options, onChange]);

  const more = agents.data && agents.data.pagination.totalItems > agents.data.agents.length;
  return (
    <div className="grid grid-cols-1 items-start gap-3 sm:grid-cols-2">
      <Field label="Find agent" id={`${id}-search`}>
        <Input type="search" placeholder="Name or agent ID" value={searchInput} onChange={(e) => setSearchInput(e.target.value)} />
      </Field>
      <Field
        label={label}
        id={id}
        error={agents.isError ? "Could not load agents." : undefined}
        hint={more ? `${agents.data!.agents.length} of ${agents.data!.pagination.totalItems} shown: type to narrow.` : undefined}
      >
        <NativeSelect value={value} onChange={(e) => onChange(e.target.value)} aria-busy={agents.isFetching} disabled={agents.isPending}>
          {agents.isPending && <option value="">Loading agents…</option>}
          {value && !selected && !agents.isPending && <option value={value}>The chosen agent</option>}
          {!agents.isPending && options.length === 0 && <option value="">No matching agent</option>}
          {options.map((agent) => (
            <option key={agent.agentId} value={agent.agentId}>
              {agent.name}
              {agent.status !== "ACTIVE" ? ` (${agent.status.toLowerCase()})` : ""}
            </option>
          ))}
        </NativeSelect>
      </Field>
    </div>
  );
}
