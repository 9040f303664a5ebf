"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { errorMessage, useTRPC } from "@/server/trpc/client/react";
import { ConfirmButton } from "../../../../_components/confirm-button";
import { LocalTime } from "../../../../_components/local-time";
import { useCan, useOrgPath } from "../../../../_components/org-context";
import { ErrorState, Loading, PageHeader } from "../../../../_components/states";
import { AgentFilterField } from "../agent-filter-field";
import { SecretReveal } from "../secret-reveal";
import { DeliveriesLog } from "./deliveries-log";

type Endpoint = { endpointId: string; url: string; description: string; agentIds: string[]; enabled: boolean };

function EditEndpointForm({ endpoint }: { endpoint: Endpoint }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const can = useCan();
  const [url, setUrl] = useState(endpoint.url);
  const [description, setDescription] = useState(endpoint.description);
  const [agentIds, setAgentIds] = useState(endpoint.agentIds);
  const update = useMutation(trpc.webhooks.updateEndpoint.mutationOptions({ onSuccess: () => void queryClient.invalidateQueries({ queryKey: trpc.webhooks.pathKey() }) }));
  function onSubmit(event: FormEvent) {
    event.preventDefault();
    update.mutate({ endpointId: endpoint.endpointId, url, description, agentIds });
  }
  return (
    <form onSubmit={onSubmit}>
      <fieldset disabled={!can.admin || update.isPending} style={{ border: "none", padding: 0, margin: 0, minWidth: 0 }}>
        <div className="row">
          <div className="field">
            <label htmlFor="edit-url">URL</label>
            <input id="edit-url" type="url" value={url} onChange={(e) => setUrl(e.target.value)} required />
          </div>
          <div className="field">
            <label htmlFor="edit-description">Description</label>
            <input id="edit-description" type="text" value={description} onChange={(e) => setDescription(e.target.value)} maxLength={200} />
          </div>
        </div>
        <AgentFilterField value={agentIds} onChange={setAgentIds} />
        {can.admin && (
          <button type="submit" className="btn btn-primary">
            {update.isPending ? "Saving…" : "Save endpoint"}
          </button>
        )}
      </fieldset>
      {update.isError && (
        <div className="alert alert-error" role="alert">
          {errorMessage(update.error)}
        </div>
      )}
      {update.isSuccess && (
        <div className="alert alert-ok" role="status">
          Saved.
        </div>
      )}
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
      className="row"
      onSubmit={(event) => {
        event.preventDefault();
        if (selected) send.mutate({ endpointId, agentId: selected });
      }}
    >
      <div className="field">
        <label htmlFor="test-agent">Sample payload of agent</label>
        <select id="test-agent" value={selected} onChange={(e) => setAgentId(e.target.value)} disabled={!agents.data}>
          {agents.data?.agents.map((agent) => (
            <option key={agent.agentId} value={agent.agentId}>
              {agent.name}
            </option>
          ))}
        </select>
      </div>
      <div className="field" style={{ flex: "0 0 auto" }}>
        <button type="submit" className="btn" disabled={send.isPending || !selected}>
          {send.isPending ? "Sending…" : "Send test event"}
        </button>
      </div>
      {send.isError && (
        <div className="alert alert-error" role="alert" style={{ flexBasis: "100%" }}>
          {errorMessage(send.error)}
        </div>
      )}
      {send.data && (
        <div className={`alert ${send.data.outcome === "succeeded" ? "alert-ok" : "alert-warn"}`} role="status" style={{ flexBasis: "100%" }} data-testid="test-event-result">
          Test event {send.data.outcome === "succeeded" ? "delivered" : send.data.outcome}
          {send.data.statusCode !== null && ` (HTTP ${send.data.statusCode})`}
          {send.data.error && ` — ${send.data.error}`}.
        </div>
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

  if (endpoint.isPending) return <Loading rows={5} />;
  if (endpoint.isError) {
    return (
      <>
        <p>
          <Link href={path("/webhooks")}>← Webhooks</Link>
        </p>
        <ErrorState error={endpoint.error} retry={() => void endpoint.refetch()} />
      </>
    );
  }
  const data = endpoint.data;
  return (
    <>
      <p>
        <Link href={path("/webhooks")}>← Webhooks</Link>
      </p>
      <PageHeader
        title="Webhook endpoint"
        description={
          <>
            <span style={{ wordBreak: "break-all" }}>{data.url}</span> ·{" "}
            {data.enabled ? (
              <span className="badge badge-ok">Enabled</span>
            ) : (
              <span className="badge badge-danger">
                Disabled{data.disabledReason === "gone" ? " after 410 Gone" : ""} {data.disabledAt && <LocalTime iso={data.disabledAt} />}
              </span>
            )}
          </>
        }
      />
      {actionError && (
        <div className="alert alert-error" role="alert">
          {errorMessage(actionError)}
        </div>
      )}
      {rotate.data && <SecretReveal secret={rotate.data.secret} title="Secret rotated." />}
      <section className="panel" aria-labelledby="endpoint-settings">
        <h2 id="endpoint-settings" style={{ marginTop: 0 }}>
          Settings
        </h2>
        <EditEndpointForm key={data.updatedAt} endpoint={data} />
      </section>
      <section className="panel" aria-labelledby="endpoint-secret">
        <h2 id="endpoint-secret" style={{ marginTop: 0 }}>
          Signing secret
        </h2>
        <p>
          Current secret fingerprint <code>{data.secretFingerprint}</code>
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
          <div className="row">
            <div className="field" style={{ flex: "0 1 260px" }}>
              <label htmlFor="grace">Keep the old secret signing for</label>
              <select id="grace" value={grace} onChange={(e) => setGrace(Number(e.target.value))}>
                <option value={0}>No grace (retire it now)</option>
                <option value={3600}>1 hour</option>
                <option value={86_400}>24 hours</option>
                <option value={604_800}>7 days</option>
              </select>
            </div>
            <div className="field" style={{ flex: "0 0 auto" }}>
              <button type="button" className="btn" disabled={rotate.isPending} onClick={() => rotate.mutate({ endpointId, graceSeconds: grace })}>
                {rotate.isPending ? "Rotating…" : "Rotate secret"}
              </button>
            </div>
          </div>
        )}
      </section>
      {can.admin && (
        <section className="panel" aria-labelledby="endpoint-test">
          <h2 id="endpoint-test" style={{ marginTop: 0 }}>
            Send a test event
          </h2>
          <p className="hint">Delivers a signed sample call result built from the agent&apos;s configuration (the same as GET /agent/&#123;agentId&#125;/call_event_sample).</p>
          <TestEventForm endpointId={endpointId} />
        </section>
      )}
      {can.admin && (
        <div className="actions">
          {data.enabled ? (
            <ConfirmButton label="Disable endpoint" title="Disable this endpoint?" confirmLabel="Disable" onConfirm={() => disable.mutate({ endpointId })}>
              <p>No more deliveries go to it; pending retries are cancelled. You can enable it again and replay missed deliveries.</p>
            </ConfirmButton>
          ) : (
            <button type="button" className="btn btn-small" onClick={() => enable.mutate({ endpointId, enabled: true })}>
              Enable endpoint
            </button>
          )}
          <ConfirmButton label="Delete endpoint" title="Delete this endpoint?" confirmLabel="Delete" onConfirm={() => remove.mutate({ endpointId })}>
            <p>The endpoint and its pending retries are removed.</p>
          </ConfirmButton>
        </div>
      )}
      <DeliveriesLog endpointId={endpointId} />
    </>
  );
}
