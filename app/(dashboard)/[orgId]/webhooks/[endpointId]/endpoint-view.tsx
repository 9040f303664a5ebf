"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { errorMessage, useTRPC } from "@/server/trpc/client/react";
import { useCan, useOrgPath } from "../../../../_components/org-context";
import { Alert } from "../../../../_components/ui/alert";
import { Button } from "../../../../_components/ui/button";
import { Section } from "../../../../_components/ui/card";
import { ConfirmButton } from "../../../../_components/ui/confirm-button";
import { Field, FieldRow } from "../../../../_components/ui/field";
import { formErrors } from "../../../../_components/ui/form-errors";
import { Input, NativeSelect } from "../../../../_components/ui/input";
import { PageHeader } from "../../../../_components/ui/page-header";
import { ErrorState, Loading } from "../../../../_components/ui/states";
import { LocalTime } from "../../../../_components/ui/time";
import { AgentFilterField } from "../agent-filter-field";
import { EventTypesField, type WebhookEventType } from "../event-types-field";
import { SecretReveal } from "../secret-reveal";
import { EndpointHealthStatus } from "../endpoint-health";
import { EndpointStatusBadge } from "../webhooks-view";
import { DeliveriesLog } from "./deliveries-log";

type Endpoint = { endpointId: string; url: string; description: string; agentIds: string[]; eventTypes: WebhookEventType[]; enabled: boolean };

/**
 * The form is keyed by the endpoint's `updatedAt`, so a save remounts it with the stored values; the "Saved." notice
 * therefore lives in the parent (`onSaved`), as the agent editor's does, or it would vanish with the remount.
 */
function EditEndpointForm({ endpoint, onSaved }: { endpoint: Endpoint; onSaved: (saved: boolean) => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const can = useCan();
  const [url, setUrl] = useState(endpoint.url);
  const [description, setDescription] = useState(endpoint.description);
  const [agentIds, setAgentIds] = useState(endpoint.agentIds);
  const [eventTypes, setEventTypes] = useState(endpoint.eventTypes);
  const update = useMutation(
    trpc.webhooks.updateEndpoint.mutationOptions({
      onMutate: () => onSaved(false),
      onSuccess: () => {
        onSaved(true);
        void queryClient.invalidateQueries({ queryKey: trpc.webhooks.pathKey() });
      },
    }),
  );
  const errors = formErrors(update.error, ["url", "description"] as const);
  function onSubmit(event: FormEvent) {
    event.preventDefault();
    update.mutate({ endpointId: endpoint.endpointId, url, description, agentIds, eventTypes });
  }
  return (
    <form onSubmit={onSubmit}>
      <fieldset disabled={!can.admin || update.isPending} className="flex min-w-0 flex-col gap-3 border-0 p-0">
        <FieldRow>
          <Field label="URL" id="edit-url" error={errors.fields.url}>
            <Input type="url" value={url} onChange={(e) => setUrl(e.target.value)} required />
          </Field>
          <Field label="Description" id="edit-description" error={errors.fields.description}>
            <Input value={description} onChange={(e) => setDescription(e.target.value)} maxLength={200} />
          </Field>
        </FieldRow>
        <AgentFilterField value={agentIds} onChange={setAgentIds} />
        <EventTypesField value={eventTypes} onChange={setEventTypes} />
        {can.admin && (
          <div>
            <Button type="submit" variant="primary" disabled={eventTypes.length === 0}>
              {update.isPending ? "Saving…" : "Save endpoint"}
            </Button>
          </div>
        )}
      </fieldset>
      {errors.message && <Alert tone="error" className="mt-3">{errors.message}</Alert>}
    </form>
  );
}

function TestEventForm({ endpointId }: { endpointId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const agents = useQuery(trpc.agents.listForConsole.queryOptions({ page: 1, pageSize: 100 }));
  const [agentId, setAgentId] = useState("");
  const send = useMutation(
    trpc.webhooks.sendTestEvent.mutationOptions({ onSettled: () => void queryClient.invalidateQueries({ queryKey: trpc.webhooks.listDeliveries.pathKey() }) }),
  );
  const selected = agentId || agents.data?.agents[0]?.agentId || "";
  return (
    <form
      className="flex flex-col gap-3"
      onSubmit={(event) => {
        event.preventDefault();
        if (selected) send.mutate({ endpointId, agentId: selected });
      }}
    >
      <div className="grid grid-cols-1 items-end gap-3 sm:grid-cols-[minmax(0,20rem)_auto]">
        <Field label="Sample payload of agent" id="test-agent">
          <NativeSelect value={selected} onChange={(e) => setAgentId(e.target.value)} disabled={!agents.data}>
            {agents.data?.agents.map((agent) => (
              <option key={agent.agentId} value={agent.agentId}>
                {agent.name}
              </option>
            ))}
          </NativeSelect>
        </Field>
        <Button type="submit" disabled={send.isPending || !selected}>
          {send.isPending ? "Sending…" : "Send test event"}
        </Button>
      </div>
      {send.isError && <Alert tone="error">{errorMessage(send.error)}</Alert>}
      {send.data && (
        <Alert tone={send.data.outcome === "succeeded" ? "success" : "warning"} data-testid="test-event-result">
          Test event {send.data.outcome === "succeeded" ? "delivered" : send.data.outcome}
          {send.data.statusCode !== null && ` (HTTP ${send.data.statusCode})`}
          {send.data.error && ` — ${send.data.error}`}.
        </Alert>
      )}
    </form>
  );
}

export function EndpointView({ endpointId }: { endpointId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const router = useRouter();
  const can = useCan();
  const path = useOrgPath();
  const [grace, setGrace] = useState(86_400);
  const [saved, setSaved] = useState(false);
  const endpoint = useQuery(trpc.webhooks.getEndpoint.queryOptions({ endpointId }));
  const invalidate = () => queryClient.invalidateQueries({ queryKey: trpc.webhooks.pathKey() });
  const rotate = useMutation(trpc.webhooks.rotateSecret.mutationOptions({ onSuccess: () => void invalidate() }));
  const disable = useMutation(trpc.webhooks.disableEndpoint.mutationOptions({ onSuccess: () => void invalidate() }));
  const enable = useMutation(trpc.webhooks.updateEndpoint.mutationOptions({ onSuccess: () => void invalidate() }));
  const remove = useMutation(
    trpc.webhooks.deleteEndpoint.mutationOptions({
      onSuccess: async () => {
        await invalidate();
        router.push(path("/webhooks"));
      },
    }),
  );
  const actionError = rotate.error ?? disable.error ?? enable.error ?? remove.error;
  const back = { href: path("/webhooks"), label: "Webhooks" };

  if (endpoint.isPending) return <Loading rows={5} />;
  if (endpoint.isError) {
    return (
      <>
        <PageHeader title="Webhook endpoint" back={back} />
        <ErrorState error={endpoint.error} retry={() => void endpoint.refetch()} />
      </>
    );
  }
  const data = endpoint.data;
  return (
    <div className="flex flex-col gap-4">
      <PageHeader
        title="Webhook endpoint"
        back={back}
        description={
          <span className="flex flex-wrap items-center gap-2">
            <span className="break-all">{data.url}</span>
            <EndpointHealthStatus endpointId={data.endpointId} enabled={data.enabled}>
              <EndpointStatusBadge enabled={data.enabled} disabledReason={data.disabledReason} />
            </EndpointHealthStatus>
            {!data.enabled && data.disabledAt && (
              <span className="text-sm">
                since <LocalTime iso={data.disabledAt} />
              </span>
            )}
          </span>
        }
      />
      {actionError && <Alert tone="error">{errorMessage(actionError)}</Alert>}
      {rotate.data && <SecretReveal secret={rotate.data.secret} title="Secret rotated." />}
      <Section title="Settings">
        <EditEndpointForm key={data.updatedAt} endpoint={data} onSaved={setSaved} />
        {saved && (
          <Alert tone="success" className="mt-3">
            Saved.
          </Alert>
        )}
      </Section>
      <Section title="Signing secret">
        <p>
          The current secret&apos;s fingerprint is <code>{data.secretFingerprint}</code> (compare it with yours)
          {data.secretRotatedAt && (
            <>
              , rotated <LocalTime iso={data.secretRotatedAt} />
            </>
          )}
          .
          {data.previousSecretExpiresAt && (
            <>
              {" "}
              The previous secret still signs until <LocalTime iso={data.previousSecretExpiresAt} />.
            </>
          )}
        </p>
        {can.admin && (
          <div className="mt-3 grid grid-cols-1 items-end gap-3 sm:grid-cols-[minmax(0,16rem)_auto]">
            <Field label="Keep the old secret signing for" id="grace">
              <NativeSelect value={grace} onChange={(e) => setGrace(Number(e.target.value))}>
                <option value={0}>No grace (retire it now)</option>
                <option value={3600}>1 hour</option>
                <option value={86_400}>24 hours</option>
                <option value={604_800}>7 days</option>
              </NativeSelect>
            </Field>
            <Button disabled={rotate.isPending} onClick={() => rotate.mutate({ endpointId, graceSeconds: grace })}>
              {rotate.isPending ? "Rotating…" : "Rotate secret"}
            </Button>
          </div>
        )}
      </Section>
      {can.admin && (
        <Section title="Send a test event" description="Delivers a signed sample call result built from an agent's settings, so you can check your receiver.">
          <TestEventForm endpointId={endpointId} />
        </Section>
      )}
      {can.admin && (
        <Section title="Turn off or delete">
          <div className="flex flex-wrap gap-2">
            {data.enabled ? (
              <ConfirmButton label="Disable endpoint" title="Disable this endpoint?" confirmLabel="Disable" onConfirm={() => disable.mutate({ endpointId })}>
                <p>No more deliveries go to it; pending retries are cancelled. You can enable it again and replay missed deliveries.</p>
              </ConfirmButton>
            ) : (
              <Button size="sm" onClick={() => enable.mutate({ endpointId, enabled: true })}>
                Enable endpoint
              </Button>
            )}
            <ConfirmButton label="Delete endpoint" title="Delete this endpoint?" confirmLabel="Delete" onConfirm={() => remove.mutate({ endpointId })}>
              <p>The endpoint and its pending retries are removed.</p>
            </ConfirmButton>
          </div>
        </Section>
      )}
      <DeliveriesLog endpointId={endpointId} />
    </div>
  );
}
