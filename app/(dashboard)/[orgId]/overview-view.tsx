"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useTRPC } from "@/server/trpc/client/react";
import { useCan, useOrg, useOrgPath } from "../../_components/org-context";
import { Section } from "../../_components/ui/card";
import { CopyButton } from "../../_components/ui/copy-button";
import { plural } from "../../_components/ui/format";
import { PageHeader } from "../../_components/ui/page-header";
import { StatCard, StatGrid } from "../../_components/ui/stat-card";
import { ErrorState, Loading } from "../../_components/ui/states";

export function OverviewView() {
  const trpc = useTRPC();
  const org = useOrg();
  const can = useCan();
  const path = useOrgPath();
  const usage = useQuery(trpc.credits.usage.queryOptions({}));
  const agents = useQuery(trpc.agents.listForConsole.queryOptions({ page: 1 }));

  return (
    <div className="flex flex-col gap-4">
      <PageHeader title={org.name} description={`You are ${org.role === "admin" ? "an admin" : `a ${org.role}`} of this organization.`} />
      <Section title="Credits this month" actions={<Link href={path("/credits")}>Usage by agent and day →</Link>}>
        {usage.isPending ? (
          <Loading />
        ) : usage.isError ? (
          <ErrorState error={usage.error} retry={() => void usage.refetch()} />
        ) : (
          <StatGrid>
            <StatCard label="Allocated" value={usage.data.organization.allocatedCredits?.toLocaleString() ?? "—"} />
            <StatCard label="Spent" value={usage.data.organization.spentCredits.toLocaleString()} />
            <StatCard label="Remaining" value={usage.data.organization.remainingCredits?.toLocaleString() ?? "—"} />
            <StatCard label="Used" value={`${usage.data.organization.percentageUsed ?? 0}%`} />
          </StatGrid>
        )}
      </Section>
      <Section title="Agents">
        {agents.isPending ? (
          <Loading rows={1} />
        ) : agents.isError ? (
          <ErrorState error={agents.error} retry={() => void agents.refetch()} />
        ) : (
          <p>
            {plural(agents.data.pagination.totalItems, "agent")}. <Link href={path("/agents")}>Manage agents →</Link>
          </p>
        )}
      </Section>
      <Section title="Use the API">
        <div className="flex flex-col gap-2">
          <p className="flex flex-wrap items-center gap-2">
            <span>Your organization&apos;s ID, which the API asks for:</span>
            <code className="break-all">{org.orgId}</code>
            <CopyButton value={org.orgId} label="Copy ID" />
          </p>
          <p>
            Your systems send an API key with every request. {can.admin ? <Link href={path("/api-keys")}>Manage API keys →</Link> : "Ask an admin for a key."}{" "}
            <a href="/docs">API reference</a>.
          </p>
        </div>
      </Section>
    </div>
  );
}
