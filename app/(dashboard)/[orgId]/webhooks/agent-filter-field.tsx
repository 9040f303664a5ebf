"use client";

import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/server/trpc/client/react";
import { CheckboxField } from "../../../_components/ui/checkbox";
import { FieldSet } from "../../../_components/ui/field";

/** Checkboxes of the organization's agents; none checked = every agent. */
export function AgentFilterField({ value, onChange }: { value: string[]; onChange: (agentIds: string[]) => void }) {
  const trpc = useTRPC();
  const agents = useQuery(trpc.agents.listForConsole.queryOptions({ page: 1, pageSize: 100 }));
  return (
    <FieldSet legend="Agents" hint="Deliver calls of the checked agents only; leave all unchecked for every agent.">
      {agents.isPending && <span className="text-sm text-muted-foreground">Loading agents…</span>}
      {agents.data && (
        <div className="mt-1 flex flex-wrap gap-x-5 gap-y-2">
          {agents.data.agents.map((agent) => (
            <CheckboxField
              key={agent.agentId}
              label={agent.name}
              checked={value.includes(agent.agentId)}
              onCheckedChange={(checked) => onChange(checked === true ? [...value, agent.agentId] : value.filter((id) => id !== agent.agentId))}
            />
          ))}
        </div>
      )}
      {agents.data && agents.data.pagination.totalItems > agents.data.agents.length && (
        <span className="text-sm text-muted-foreground">
          Showing the first {agents.data.agents.length} of {agents.data.pagination.totalItems} agents, by name.
        </span>
      )}
    </FieldSet>
  );
}
