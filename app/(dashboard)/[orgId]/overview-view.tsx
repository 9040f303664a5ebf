"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { useTRPC } from "@/server/trpc/client/react";
import { useCan, useOrg, useOrgPath } from "../../_components/org-context";
import { Button } from "../../_components/ui/button";
import { Section } from "../../_components/ui/card";
import { CopyButton } from "../../_components/ui/copy-button";
import { PageHeader } from "../../_components/ui/page-header";
import { ErrorState, Loading } from "../../_components/ui/states";
import { CallQualitySection } from "./_overview/call-quality-section";
import { DailyCharts, MonthCredits, OverviewAlerts, PeriodStats, RecentCalls } from "./_overview/overview-sections";
import { FailingEndpointsAlert } from "./webhooks/endpoint-health";

/** The organization's landing page: how the calls are going, what they cost, and what needs attention. */
export function OverviewView() {
  const trpc = useTRPC();
  const org = useOrg();
  const can = useCan();
  const path = useOrgPath();
  const [days, setDays] = useState<7 | 30>(7);
  const overview = useQuery({ ...trpc.overview.get.queryOptions({ days }), placeholderData: keepPreviousData });

  return (
    <div className="flex flex-col gap-4">
      <PageHeader
        title={org.name}
        description="How your calls are going."
        actions={
          <div role="group" aria-label="Period" className="flex gap-1">
            {([7, 30] as const).map((value) => (
              <Button key={value} size="sm" variant={days === value ? "primary" : "secondary"} aria-pressed={days === value} onClick={() => setDays(value)}>
                Last {value} days
              </Button>
            ))}
          </div>
        }
      />
      <FailingEndpointsAlert />
      {overview.isPending ? (
        <Loading rows={4} />
      ) : overview.isError ? (
        <ErrorState error={overview.error} retry={() => void overview.refetch()} />
      ) : (
        <>
          <OverviewAlerts overview={overview.data} />
          <div aria-busy={overview.isPlaceholderData} data-testid="overview-period" data-days={overview.data.period.days}>
            <PeriodStats overview={overview.data} />
          </div>
          <DailyCharts overview={overview.data} />
          <CallQualitySection overview={overview.data} />
          <MonthCredits overview={overview.data} />
          <RecentCalls overview={overview.data} />
        </>
      )}
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
