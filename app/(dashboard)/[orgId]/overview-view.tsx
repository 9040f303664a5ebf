"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useTRPC } from "@/server/trpc/client/react";
import { CopyButton } from "../../_components/copy-button";
import { useCan, useOrg, useOrgPath } from "../../_components/org-context";
import { ErrorState, Loading, PageHeader } from "../../_components/states";

export function OverviewView() {
  const trpc = useTRPC();
  const org = useOrg();
  const can = useCan();
  const path = useOrgPath();
  const usage = useQuery(trpc.credits.usage.queryOptions({}));
  const agents = useQuery(trpc.agents.listForConsole.queryOptions({ page: 1 }));

  return (
    <>
      <PageHeader title={org.name} description={`You are ${org.role === "admin" ? "an admin" : `a ${org.role}`} of this organization.`} />
      <h2>Credits this month</h2>
      {usage.isPending ? (
        <Loading />
      ) : usage.isError ? (
        <ErrorState error={usage.error} retry={() => void usage.refetch()} />
      ) : (
        <div className="grid">
          <div className="stat">
            <div className="label">Allocated</div>
            <div className="value">{usage.data.organization.allocatedCredits?.toLocaleString() ?? "—"}</div>
          </div>
          <div className="stat">
            <div className="label">Spent</div>
            <div className="value">{usage.data.organization.spentCredits.toLocaleString()}</div>
          </div>
          <div className="stat">
            <div className="label">Remaining</div>
            <div className="value">{usage.data.organization.remainingCredits?.toLocaleString() ?? "—"}</div>
          </div>
          <div className="stat">
            <div className="label">Used</div>
            <div className="value">{usage.data.organization.percentageUsed ?? 0}%</div>
          </div>
        </div>
      )}
      <p>
        <Link href={path("/credits")}>Credit usage by agent and day →</Link>
      </p>
      <h2>Agents</h2>
      {agents.isPending ? (
        <Loading rows={1} />
      ) : agents.isError ? (
        <ErrorState error={agents.error} retry={() => void agents.refetch()} />
      ) : (
        <p>
          {agents.data.pagination.totalItems} agent{agents.data.pagination.totalItems === 1 ? "" : "s"}.{" "}
          <Link href={path("/agents")}>Manage agents →</Link>
        </p>
      )}
      <h2>Use the API</h2>
      <div className="panel">
        <p>
          Your organization ID (the <code>orgId</code> the API asks for): <code>{org.orgId}</code> <CopyButton value={org.orgId} label="Copy orgId" />
        </p>
        <p>
          Send an API key in the <code>x-api-key</code> header to <code>/api/v1</code>.{" "}
          {can.admin ? <Link href={path("/api-keys")}>Manage API keys →</Link> : "Ask an admin for a key."} Reference:{" "}
          <a href="/docs">/docs</a>.
        </p>
      </div>
    </>
  );
}
