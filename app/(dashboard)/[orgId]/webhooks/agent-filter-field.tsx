"use client";

import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/server/trpc/client/react";

/** Checkboxes of the organization's agents; none checked = every agent. */
export function AgentFilterField({ value, onChange }: { value: string[]; onChange: (agentIds: string[]) => void }) {
  const trpc = useTRPC();
  const agents = useQuery(trpc.agents.listForConsole.queryOptions({ page: 1, pageSize: 100 }));
  return (
    <fieldset className="field" style={{ border: "none", padding: 0 }}>
      <legend className="label-text">Agents</legend>
      <span className="hint">Deliver calls of the checked agents only; leave all unchecked for every agent.</span>
      {agents.isPending && <span className="hint">Loading agents…</span>}
      {agents.data && (
        <div className="actions" style={{ marginTop: 4 }}>
          {agents.data.agents.map((agent) => (
            <label key={agent.agentId} className="checkbox">
              <input
                type="checkbox"
                checked={value.includes(agent.agentId)}
                onChange={(e) => onChange(e.target.checked ? [...value, agent.agentId] : value.filter((id) => id !== agent.agentId))}
              />
              {agent.name}
            </label>
          ))}
        </div>
      )}
      {agents.data && agents.data.pagination.totalItems > agents.data.agents.length && (
        <span className="hint">Showing the first {agents.data.agents.length} of {agents.data.pagination.totalItems} agents, by name.</span>
      )}
    </fieldset>
  );
}
