"use client";

import { useQuery } from "@tanstack/react-query";
import { useSearchParams } from "next/navigation";
import { useState } from "react";
import { useTRPC } from "@/server/trpc/client/react";
import { useCan, useOrgPath } from "../../../../_components/org-context";
import { Alert } from "../../../../_components/ui/alert";
import { IdDetails } from "../../../../_components/ui/id-details";
import { PageHeader } from "../../../../_components/ui/page-header";
import { ErrorState, Loading } from "../../../../_components/ui/states";
import { Tabs, TabsContent, TabsList, TabsTrigger } from "../../../../_components/ui/tabs";
import { LocalTime } from "../../../../_components/ui/time";
import { draftFromView } from "../_components/agent-draft";
import { AgentEditor } from "../_components/agent-editor";
import { AgentStatusBadge } from "../_components/agent-status";
import { CallingLimitsPanel } from "./calling-limits-panel";
import { EnrollContactForm } from "./enroll-contact-form";
import { PoolRestNotice } from "./pool-rest-notice";
import { AgentTestsTab } from "./tests/agent-tests-tab";

export function AgentDetailView({ agentId }: { agentId: string }) {
  const trpc = useTRPC();
  const path = useOrgPath();
  const created = useSearchParams().get("created") === "1";
  const agent = useQuery(trpc.agents.getConfig.queryOptions({ agentId }));
  const [saved, setSaved] = useState<string | null>(null);
  const can = useCan();
  const back = { href: path("/agents"), label: "Agents" };
  if (agent.isPending) return <Loading rows={6} />;
  if (agent.isError) {
    return (
      <>
        <PageHeader title="Agent" back={back} />
        <ErrorState error={agent.error} retry={() => void agent.refetch()} />
      </>
    );
  }
  const view = agent.data;
  return (
    <div className="flex flex-col gap-4">
      <PageHeader
        title={view.name}
        back={back}
        description={
          <div className="flex flex-col gap-1">
            <span className="flex flex-wrap items-center gap-2">
              <AgentStatusBadge status={view.status} />
              <span>
                Updated <LocalTime iso={view.updatedAt} />
              </span>
            </span>
            <IdDetails label="Agent ID" ids={[{ label: "Agent ID", value: view.agentId, testId: "agent-id" }]} />
          </div>
        }
      />
      <PoolRestNotice agentId={view.agentId} />
      {saved && <Alert tone="success">{saved}</Alert>}
      {created && !saved && <Alert tone="success">Agent created. Your systems can enroll contacts with it now.</Alert>}
      <Tabs defaultValue="settings">
        <TabsList aria-label="Agent">
          <TabsTrigger value="settings">Settings</TabsTrigger>
          {can.admin && <TabsTrigger value="enroll">Enroll one contact</TabsTrigger>}
          <TabsTrigger value="limits">Calling limits</TabsTrigger>
          <TabsTrigger value="tests">Tests</TabsTrigger>
        </TabsList>
        <TabsContent value="settings" forceMount className="data-[state=inactive]:hidden">
          {/* Keyed by updatedAt: after a save the form restarts from what the server stored. */}
          <AgentEditor key={view.updatedAt} mode="edit" view={view} initial={draftFromView(view)} onSaved={setSaved} />
        </TabsContent>
        {can.admin && (
          <TabsContent value="enroll" forceMount className="data-[state=inactive]:hidden">
            <EnrollContactForm agent={view} />
          </TabsContent>
        )}
        <TabsContent value="limits">
          <CallingLimitsPanel agentId={view.agentId} />
        </TabsContent>
        <TabsContent value="tests">
          <AgentTestsTab agent={view} />
        </TabsContent>
      </Tabs>
    </div>
  );
}
