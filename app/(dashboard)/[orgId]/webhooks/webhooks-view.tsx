"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useMemo, useState, type FormEvent } from "react";
import { useTRPC } from "@/server/trpc/client/react";
import { useCan, useOrgPath } from "../../../_components/org-context";
import type { RouterOutputs } from "../../../_components/router-types";
import { Alert } from "../../../_components/ui/alert";
import { Badge } from "../../../_components/ui/badge";
import { Button } from "../../../_components/ui/button";
import { Section } from "../../../_components/ui/card";
import { columnsFor, DataTable } from "../../../_components/ui/data-table";
import { Field, FieldRow } from "../../../_components/ui/field";
import { formErrors } from "../../../_components/ui/form-errors";
import { Input } from "../../../_components/ui/input";
import { PageHeader } from "../../../_components/ui/page-header";
import { LocalTime } from "../../../_components/ui/time";
import { AgentFilterField } from "./agent-filter-field";
import { EventTypesField, type WebhookEventType } from "./event-types-field";
import { EndpointHealthStatus, FailingEndpointsAlert } from "./endpoint-health";
import { SecretReveal } from "./secret-reveal";

type Endpoint = RouterOutputs["webhooks"]["listEndpoints"]["endpoints"][number];
const col = columnsFor<Endpoint>();

export function EndpointStatusBadge({ enabled, disabledReason }: { enabled: boolean; disabledReason: string | null }) {
  return enabled ? <Badge tone="success">Enabled</Badge> : <Badge tone="danger">Disabled{disabledReason === "gone" ? " (the receiver said it is gone)" : ""}</Badge>;
}

export function WebhooksView() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const can = useCan();
  const path = useOrgPath();
  const endpoints = useQuery(trpc.webhooks.listEndpoints.queryOptions({}));
  const [url, setUrl] = useState("");
  const [description, setDescription] = useState("");
  const [agentIds, setAgentIds] = useState<string[]>([]);
  const [eventTypes, setEventTypes] = useState<WebhookEventType[]>(["call.result"]);
  const [created, setCreated] = useState<{ secret: string; endpointId: string } | null>(null);
  const create = useMutation(
    trpc.webhooks.createEndpoint.mutationOptions({
      onSuccess: (data) => {
        setCreated({ secret: data.secret, endpointId: data.endpoint.endpointId });
        setUrl("");
        setDescription("");
        setAgentIds([]);
        setEventTypes(["call.result"]);
        void queryClient.invalidateQueries({ queryKey: trpc.webhooks.listEndpoints.queryKey() });
      },
    }),
  );

  const errors = formErrors(create.error, ["url", "description"] as const);

  function onCreate(event: FormEvent) {
    event.preventDefault();
    setCreated(null);
    create.mutate({ url, description: description || undefined, agentIds, eventTypes });
  }

  const columns = useMemo(
    () => [
      col.accessor("url", {
        header: "Endpoint",
        cell: ({ row }) => (
          <div className="min-w-0">
            <Link href={path(`/webhooks/${encodeURIComponent(row.original.endpointId)}`)} className="break-all">
              {row.original.url}
            </Link>
            {row.original.description && <div className="text-sm text-muted-foreground">{row.original.description}</div>}
          </div>
        ),
      }),
      col.accessor("enabled", {
        header: "Status",
        cell: ({ row }) => (
          <EndpointHealthStatus endpointId={row.original.endpointId} enabled={row.original.enabled}>
            <EndpointStatusBadge enabled={row.original.enabled} disabledReason={row.original.disabledReason} />
          </EndpointHealthStatus>
        ),
      }),
      col.accessor((endpoint) => endpoint.agentIds.length, {
        id: "agents",
        header: "Agents",
        meta: { hideBelow: "sm" },
        cell: ({ getValue }) => (getValue() === 0 ? "All" : getValue()),
      }),
      col.accessor("createdAt", { header: "Created", meta: { hideBelow: "md" }, cell: ({ getValue }) => <LocalTime iso={getValue()} /> }),
    ],
    [path],
  );

  return (
    <div className="flex flex-col gap-4">
      <PageHeader
        title="Webhooks"
        description={
          <>
            After every analysed call, each enabled endpoint receives the call&apos;s result, signed so your receiver can trust it (
            <a href="/docs">what is sent and how to check it</a>).
          </>
        }
      />
      <FailingEndpointsAlert />
      {can.admin && (
        <Section title="Add an endpoint">
          <form onSubmit={onCreate} className="flex flex-col gap-3">
            <FieldRow>
              <Field label="URL" error={errors.fields.url}>
                <Input type="url" value={url} onChange={(e) => setUrl(e.target.value)} placeholder="https://example.com/webhooks/calls" required />
              </Field>
              <Field label="Description" error={errors.fields.description}>
                <Input value={description} onChange={(e) => setDescription(e.target.value)} maxLength={200} />
              </Field>
            </FieldRow>
            <AgentFilterField value={agentIds} onChange={setAgentIds} />
            <EventTypesField value={eventTypes} onChange={setEventTypes} />
            <div>
              <Button type="submit" variant="primary" disabled={create.isPending || !url.trim() || eventTypes.length === 0}>
                {create.isPending ? "Adding…" : "Add endpoint"}
              </Button>
            </div>
          </form>
          {errors.message && <Alert tone="error" className="mt-3">{errors.message}</Alert>}
          {created && (
            <div className="mt-3 flex flex-col gap-2">
              <SecretReveal secret={created.secret} title="Endpoint added." />
              <Link href={path(`/webhooks/${encodeURIComponent(created.endpointId)}`)}>Open the endpoint: send a test event, see deliveries →</Link>
            </div>
          )}
        </Section>
      )}
      <Section title="Endpoints">
        <DataTable
          columns={columns}
          data={endpoints.data?.endpoints ?? []}
          getRowId={(endpoint) => endpoint.endpointId}
          caption="Webhook endpoints"
          isLoading={endpoints.isPending}
          error={endpoints.error}
          onRetry={() => void endpoints.refetch()}
          empty={{ title: "No webhook endpoints yet", description: can.admin ? "Add one above to receive call results." : "An admin can add one." }}
        />
      </Section>
    </div>
  );
}
