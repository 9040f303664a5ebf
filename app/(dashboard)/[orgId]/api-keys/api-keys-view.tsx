"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { errorMessage, useTRPC } from "@/server/trpc/client/react";
import { ConfirmButton } from "../../../_components/confirm-button";
import { CopyButton } from "../../../_components/copy-button";
import { LocalTime } from "../../../_components/local-time";
import { EmptyState, ErrorState, Loading, PageHeader } from "../../../_components/states";

export function ApiKeysView() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const keys = useQuery(trpc.apiKeys.list.queryOptions());
  const [name, setName] = useState("");
  const [created, setCreated] = useState<{ name: string; key: string } | null>(null);
  const invalidate = () => queryClient.invalidateQueries({ queryKey: trpc.apiKeys.list.queryKey() });
  const create = useMutation(
    trpc.apiKeys.create.mutationOptions({
      onSuccess: (data) => {
        setCreated({ name: data.name, key: data.key });
        setName("");
        void invalidate();
      },
    }),
  );
  const revoke = useMutation(trpc.apiKeys.revoke.mutationOptions({ onSuccess: () => void invalidate() }));

  function onCreate(event: FormEvent) {
    event.preventDefault();
    setCreated(null);
    create.mutate({ name });
  }

  return (
    <>
      <PageHeader title="API keys" description="Keys act for the whole organization on /api/v1. Keep them out of client-side code." />
      <section className="panel" aria-labelledby="create-key">
        <h2 id="create-key" style={{ marginTop: 0 }}>
          Create a key
        </h2>
        <form onSubmit={onCreate} className="row">
          <div className="field">
            <label htmlFor="key-name">Name</label>
            <input
              id="key-name"
              type="text"
              value={name}
              onChange={(e) => setName(e.target.value)}
              placeholder="e.g. CRM integration"
              required
              maxLength={100}
              aria-describedby="key-name-hint"
            />
            <span id="key-name-hint" className="hint">
              So you can tell your keys apart later.
            </span>
          </div>
          <div className="field" style={{ flex: "0 0 auto" }}>
            <button className="btn btn-primary" type="submit" disabled={create.isPending || !name.trim()}>
              {create.isPending ? "Creating…" : "Create key"}
            </button>
          </div>
        </form>
        {create.isError && (
          <div className="alert alert-error" role="alert">
            {errorMessage(create.error)}
          </div>
        )}
        {created && (
          <div className="alert alert-ok" role="status" data-testid="new-key">
            <p style={{ marginTop: 0 }}>
              <strong>Key “{created.name}” created.</strong> Copy it now: it is shown only this once.
            </p>
            <div className="secret">
              <code data-testid="new-key-value">{created.key}</code>
              <CopyButton value={created.key} />
            </div>
          </div>
        )}
      </section>

      {keys.data?.demoKey && (
        <section className="panel" aria-labelledby="demo-key">
          <h2 id="demo-key" style={{ marginTop: 0 }}>
            Demo key
          </h2>
          <p className="hint">Created by the demo seed on first start (embedded mode). Revoke it below when you no longer need it.</p>
          <div className="secret">
            <code data-testid="demo-key-value">{keys.data.demoKey.key}</code>
            <CopyButton value={keys.data.demoKey.key} />
          </div>
        </section>
      )}

      <h2>Keys</h2>
      {keys.isPending ? (
        <Loading />
      ) : keys.isError ? (
        <ErrorState error={keys.error} retry={() => void keys.refetch()} />
      ) : keys.data.apiKeys.length === 0 ? (
        <EmptyState title="No API keys yet">Create one above to call /api/v1.</EmptyState>
      ) : (
        <div className="table-wrap">
          <table>
            <caption className="visually-hidden">API keys of this organization</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Key</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">Status</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {keys.data.apiKeys.map((key) => (
                <tr key={key.id} data-testid={`key-row-${key.name}`}>
                  <td>{key.name}</td>
                  <td>
                    <code>{key.prefix}…</code>
                  </td>
                  <td>
                    <LocalTime iso={key.createdAt} />
                  </td>
                  <td>{key.lastUsedAt ? <LocalTime iso={key.lastUsedAt} /> : <span className="hint">Never</span>}</td>
                  <td>
                    {key.revokedAt ? (
                      <span className="badge badge-danger">
                        Revoked <LocalTime iso={key.revokedAt} />
                      </span>
                    ) : (
                      <span className="badge badge-ok">Active</span>
                    )}
                  </td>
                  <td>
                    {!key.revokedAt && (
                      <ConfirmButton
                        label="Revoke"
                        title={`Revoke “${key.name}”?`}
                        confirmLabel="Revoke key"
                        disabled={revoke.isPending}
                        onConfirm={() => revoke.mutate({ keyId: key.id })}
                      >
                        <p>Requests with this key will be refused with 401 at once. This cannot be undone.</p>
                      </ConfirmButton>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {revoke.isError && (
        <div className="alert alert-error" role="alert">
          {errorMessage(revoke.error)}
        </div>
      )}
    </>
  );
}
