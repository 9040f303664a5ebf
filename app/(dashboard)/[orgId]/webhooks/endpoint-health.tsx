"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import type { ReactNode } from "react";
import { useTRPC } from "@/server/trpc/client/react";
import { useOrgPath } from "../../../_components/org-context";
import type { RouterOutputs } from "../../../_components/router-types";
import { Alert } from "../../../_components/ui/alert";
import { Badge } from "../../../_components/ui/badge";
import { plural } from "../../../_components/ui/format";
import { LocalTime } from "../../../_components/ui/time";

type Health = RouterOutputs["webhooks"]["endpointHealth"]["endpoints"][number];

/** Every endpoint's delivery health, refreshed each minute (one query shared by the list, the endpoint and the overview). */
export function useEndpointHealth() {
  const trpc = useTRPC();
  return useQuery({ ...trpc.webhooks.endpointHealth.queryOptions(), refetchInterval: 60_000 });
}

function HealthDetails({ health }: { health: Health }) {
  return (
    <span className="mt-1 flex flex-col text-sm text-muted-foreground">
      {health.state === "failing" && (
        <>
          <span>
            Failing since <LocalTime iso={health.failingSince} /> · {plural(health.consecutiveFailures, "failed attempt")} in a row
          </span>
          {health.lastError && <span className="break-words">Last error: {health.lastError}</span>}
        </>
      )}
      <span>Last success: {health.lastSuccessAt ? <LocalTime iso={health.lastSuccessAt} /> : "never"}</span>
      {health.nextRetryAt && (
        <span>
          Next retry: <LocalTime iso={health.nextRetryAt} />
        </span>
      )}
    </span>
  );
}

/**
 * The endpoint's status as its deliveries show it: an enabled endpoint whose latest attempt failed reads "Failing".
 * `children` (the configured status) shows for a disabled endpoint and until the health is known.
 */
export function EndpointHealthStatus({ endpointId, enabled, children }: { endpointId: string; enabled: boolean; children: ReactNode }) {
  const health = useEndpointHealth().data?.endpoints.find((entry) => entry.endpointId === endpointId);
  if (!enabled || !health) return <>{children}</>;
  return (
    <span className="inline-flex flex-col items-start" data-testid="endpoint-health" data-state={health.state}>
      {health.state === "failing" ? (
        <Badge tone="danger">Failing</Badge>
      ) : health.state === "healthy" ? (
        <Badge tone="success">Delivering</Badge>
      ) : (
        <Badge tone="neutral">Enabled, nothing sent yet</Badge>
      )}
      {health.state !== "no-deliveries" && <HealthDetails health={health} />}
    </span>
  );
}

/** An alert naming the enabled endpoints whose deliveries are failing (webhooks page and overview). */
export function FailingEndpointsAlert() {
  const path = useOrgPath();
  const failing = (useEndpointHealth().data?.endpoints ?? []).filter((entry) => entry.state === "failing");
  if (failing.length === 0) return null;
  return (
    <Alert tone="error" data-testid="failing-endpoints">
      <p className="font-semibold">
        {failing.length === 1 ? "A webhook endpoint is failing" : `${failing.length} webhook endpoints are failing`}: your systems are not receiving call results.
      </p>
      <ul className="mt-1 flex flex-col gap-1">
        {failing.map((entry) => (
          <li key={entry.endpointId} className="break-all">
            <Link href={path(`/webhooks/${encodeURIComponent(entry.endpointId)}`)} className="font-semibold underline">
              {entry.url}
            </Link>: failing since <LocalTime iso={entry.failingSince} />,{" "}
            {plural(entry.consecutiveFailures, "failed attempt")} in a row
            {entry.nextRetryAt ? (
              <>
                , next retry <LocalTime iso={entry.nextRetryAt} />
              </>
            ) : (
              ", no retry scheduled"
            )}
            .
          </li>
        ))}
      </ul>
    </Alert>
  );
}
