"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useSearchParams } from "next/navigation";
import { useState } from "react";
import { useTRPC } from "@/server/trpc/client/react";
import { CopyButton } from "../../../../_components/copy-button";
import { LocalTime } from "../../../../_components/local-time";
import { useCan, useOrgPath } from "../../../../_components/org-context";
import { ErrorState, Loading, PageHeader } from "../../../../_components/states";
import { draftFromView } from "../_components/agent-draft";
import { AgentEditor } from "../_components/agent-editor";
import { EnrollContactForm } from "./enroll-contact-form";

export function AgentDetailView({ agentId }: { agentId: string }) {
  const trpc = useTRPC();
  const path = useOrgPath();
  const created = useSearchParams().get("created") === "1";
  const agent = useQuery(trpc.agents.getConfig.queryOptions({ agentId }));
  const [saved, setSaved] = useState<string | null>(null);
  const can = useCan();
  if (agent.isPending) return <Loading rows={6} />;
  if (agent.isError) {
    return (
      <>
        <p>
          <Link href={path("/agents")}>← Agents</Link>
        </p>
        <ErrorState error={agent.error} retry={() => void agent.refetch()} />
      </>
    );
  }
  const view = agent.data;
  return (
    <>
      <p>
        <Link href={path("/agents")}>← Agents</Link>
      </p>
      <PageHeader
        title={view.name}
        description={
          <>
            <code data-testid="agent-id">{view.agentId}</code> <CopyButton value={view.agentId} label="Copy ID" /> · <span className={`badge badge-${view.status}`}>{view.status}</span> ·
            updated <LocalTime iso={view.updatedAt} />
          </>
        }
      />
      {saved && (
        <div className="alert alert-ok" role="status">
          {saved}
        </div>
      )}
      {created && !saved && (
        <div className="alert alert-ok" role="status">
          Agent created. It is available through /api/v1 now.
        </div>
      )}
      {can.admin && (
        <details className="panel">
          <summary>
            <strong>Enroll one contact</strong> <span className="hint">— same rules and messages as POST /agents/&#123;agentId&#125;/schedule/sequence</span>
          </summary>
          <EnrollContactForm agent={view} />
        </details>
      )}
      {/* Keyed by updatedAt: after a save the form restarts from what the server stored. */}
      <AgentEditor key={view.updatedAt} mode="edit" view={view} initial={draftFromView(view)} onSaved={setSaved} />
    </>
  );
}
