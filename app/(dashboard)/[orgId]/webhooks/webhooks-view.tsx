"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState, type FormEvent } from "react";
import { errorMessage, useTRPC } from "@/server/trpc/client/react";
import { LocalTime } from "../../../_components/local-time";
import { useCan, useOrgPath } from "../../../_components/org-context";
import { EmptyState, ErrorState, Loading, PageHeader } from "../../../_components/states";
import { AgentFilterField } from "./agent-filter-field";
import { SecretReveal } from "./secret-reveal";

export function WebhooksView() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const can = useCan();
  const path = useOrgPath();
  const endpoints = useQuery(trpc.webhooks.listEndpoints.queryOptions({}));
  const [url, setUrl] = useState("");
  const [description, setDescription] = useState("");
  const [agentIds, setAgentIds] = useState<string[]>([]);
  const [created, setCreated] = useState<{ secret: string; endpointId: string } | null>(null);
  const create = useMutation(
    trpc.webhooks.createEndpoint.mutationOptions({
      onSuccess: (data) => {
        setCreated({ secret: data.secret, endpointId: data.endpoint.endpointId });
        setUrl("");
        setDescription("");
        setAgentIds([]);
        void queryClient.invalidateQueries({ queryKey: trpc.webhooks.listEndpoints.queryKey() });
      },
    }),
  );

  function onCreate(event: FormEvent) {
    event.preventDefault();
    setCreated(null);
    create.mutate({ url, description: description || undefined, agentIds });
  }

  return (
    <>
      <PageHeader
        title="Webhooks"
        description={
          <>
            After every analysed call, each enabled endpoint gets a signed POST with the call result (<a href="/docs">payload and verification</a>).
          </>
        }
      />
      {can.admin && (
        <section className="panel" aria-labelledby="add-endpoint">
          <h2 id="add-endpoint" style={{ marginTop: 0 }}>
            Add an endpoint
          </h2>
          <form onSubmit={onCreate}>
            <div className="row">
              <div className="field">
                <label htmlFor="endpoint-url">URL</label>
                <input id="endpoint-url" type="url" value={url} onChange={(e) => setUrl(e.target.value)} placeholder="https://example.com/webhooks/calls" required />
              </div>
              <div className="field">
                <label htmlFor="endpoint-description">Description</label>
                <input id="endpoint-description" type="text" value={description} onChange={(e) => setDescription(e.target.value)} maxLength={200} />
              </div>
            </div>
            <AgentFilterField value={agentIds} onChange={setAgentIds} />
            <button type="submit" className="btn btn-primary" disabled={create.isPending || !url.trim()}>
              {create.isPending ? "Adding…" : "Add endpoint"}
            </button>
          </form>
          {create.isError && (
            <div className="alert alert-error" role="alert">
              {errorMessage(create.error)}
            </div>
          )}
          {created && (
            <>
              <SecretReveal secret={created.secret} title="Endpoint added." />
              <Link href={path(`/webhooks/${encodeURIComponent(created.endpointId)}`)}>Open the endpoint: send a test event, see deliveries →</Link>
            </>
          )}
        </section>
      )}
      <h2>Endpoints</h2>
      {endpoints.isPending ? (
        <Loading />
      ) : endpoints.isError ? (
        <ErrorState error={endpoints.error} retry={() => void endpoints.refetch()} />
      ) : endpoints.data.endpoints.length === 0 ? (
        <EmptyState title="No webhook endpoints yet">{can.admin ? "Add one above to receive call results." : "An admin can add one."}</EmptyState>
      ) : (
        <div className="table-wrap">
          <table>
            <caption className="visually-hidden">Webhook endpoints</caption>
            <thead>
              <tr>
                <th scope="col">Endpoint</th>
                <th scope="col">Status</th>
                <th scope="col">Agents</th>
                <th scope="col">Secret</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {endpoints.data.endpoints.map((endpoint) => (
                <tr key={endpoint.endpointId}>
                  <td>
                    <Link href={path(`/webhooks/${encodeURIComponent(endpoint.endpointId)}`)} style={{ wordBreak: "break-all" }}>
                      {endpoint.url}
                    </Link>
                    {endpoint.description && <div className="hint">{endpoint.description}</div>}
                  </td>
                  <td>
                    {endpoint.enabled ? (
                      <span className="badge badge-ok">Enabled</span>
                    ) : (
                      <span className="badge badge-danger">Disabled{endpoint.disabledReason === "gone" ? " (410 Gone)" : ""}</span>
                    )}
                  </td>
                  <td>{endpoint.agentIds.length === 0 ? "All" : endpoint.agentIds.length}</td>
                  <td>
                    <code title="Fingerprint of the current secret">{endpoint.secretFingerprint}</code>
                  </td>
                  <td>
                    <LocalTime iso={endpoint.createdAt} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
