"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useTRPC } from "@/server/trpc/client/react";
import type { RouterOutputs } from "../../../_components/router-types";
import { useOrgPath } from "../../../_components/org-context";
import { Alert } from "../../../_components/ui/alert";
import { Badge } from "../../../_components/ui/badge";
import { Section } from "../../../_components/ui/card";
import { columnsFor, DataTable } from "../../../_components/ui/data-table";
import { DescriptionList } from "../../../_components/ui/description-list";
import { PageHeader } from "../../../_components/ui/page-header";
import { ErrorState, Loading } from "../../../_components/ui/states";
import { AgentStatusBadge } from "../agents/_components/agent-status";
import { CalendarSection } from "./calendar-section";

type Integrations = RouterOutputs["integrations"]["get"];
type AgentNumbers = Integrations["agentNumbers"]["agents"][number];
const col = columnsFor<AgentNumbers>();

const ENGINE_NAMES: Record<Integrations["voiceEngine"]["engine"], string> = {
  simulator: "Simulator",
  "twilio-realtime": "Twilio with OpenAI Realtime",
};

export function IntegrationsView() {
  const trpc = useTRPC();
  const integrations = useQuery(trpc.integrations.get.queryOptions());
  return (
    <div className="flex flex-col gap-4">
      <PageHeader title="Integrations" description="The services your agents use to call people and book meetings." />
      {integrations.isPending ? (
        <Loading label="Loading integrations…" />
      ) : integrations.error ? (
        <ErrorState error={integrations.error} retry={() => void integrations.refetch()} />
      ) : (
        <>
          <CalendarSection calendar={integrations.data.calendar} />
          <VoiceEngineSection voiceEngine={integrations.data.voiceEngine} />
          <AgentNumbersSection agentNumbers={integrations.data.agentNumbers} />
        </>
      )}
    </div>
  );
}

function VoiceEngineSection({ voiceEngine }: { voiceEngine: Integrations["voiceEngine"] }) {
  return (
    <Section
      title="Voice engine"
      description="What places the calls. It is chosen in the server's configuration, not here."
      actions={<Badge tone="info">{ENGINE_NAMES[voiceEngine.engine]}</Badge>}
      data-testid="voice-engine"
    >
      <DescriptionList items={voiceEngine.facts.map((fact) => ({ label: fact.label, value: fact.value, key: fact.label }))} />
    </Section>
  );
}

function AgentNumbersSection({ agentNumbers }: { agentNumbers: Integrations["agentNumbers"] }) {
  const path = useOrgPath();
  const columns = [
    col.accessor("name", {
      header: "Agent",
      cell: ({ row }) => (
        <Link href={path(`/agents/${encodeURIComponent(row.original.agentId)}`)} className="break-words">
          {row.original.name}
        </Link>
      ),
    }),
    col.accessor("status", {
      header: "Status",
      meta: { hideBelow: "sm" },
      cell: ({ getValue }) => <AgentStatusBadge status={getValue()} />,
    }),
    col.accessor("phoneNumbers", {
      header: "Calls from",
      enableSorting: false,
      cell: ({ getValue }) => {
        const numbers = getValue();
        return numbers.length ? (
          <ul>
            {numbers.map((number) => (
              <li key={number} className="tabular-nums whitespace-nowrap">
                {number}
              </li>
            ))}
          </ul>
        ) : (
          <span className="text-muted-foreground">No number set</span>
        );
      },
    }),
  ];
  return (
    <Section title="Agents' phone numbers" description="The numbers each agent calls from.">
      {agentNumbers.truncated && (
        <Alert tone="info" role="note" className="mb-3">
          Showing the first {agentNumbers.agents.length} agents by name.
        </Alert>
      )}
      <DataTable
        columns={columns}
        data={agentNumbers.agents}
        getRowId={(agent) => agent.agentId}
        caption="Phone numbers of each agent"
        pageSize={25}
        empty={{ title: "No agents yet", description: "Create an agent to give it phone numbers." }}
        rowTestId={(agent) => `numbers-${agent.name}`}
      />
    </Section>
  );
}
