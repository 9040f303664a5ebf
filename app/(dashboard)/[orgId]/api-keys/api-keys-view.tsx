"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useMemo, useState, type FormEvent } from "react";
import { errorMessage, useTRPC } from "@/server/trpc/client/react";
import type { RouterOutputs } from "../../../_components/router-types";
import { Alert } from "../../../_components/ui/alert";
import { Badge } from "../../../_components/ui/badge";
import { Button } from "../../../_components/ui/button";
import { Section } from "../../../_components/ui/card";
import { ConfirmButton } from "../../../_components/ui/confirm-button";
import { SecretValue } from "../../../_components/ui/copy-button";
import { columnsFor, DataTable } from "../../../_components/ui/data-table";
import { Field } from "../../../_components/ui/field";
import { formErrors } from "../../../_components/ui/form-errors";
import { Input } from "../../../_components/ui/input";
import { PageHeader } from "../../../_components/ui/page-header";
import { LocalTime } from "../../../_components/ui/time";
import { toast } from "../../../_components/ui/toast";

type ApiKey = RouterOutputs["apiKeys"]["list"]["apiKeys"][number];
const col = columnsFor<ApiKey>();

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
  const revoke = useMutation(
    trpc.apiKeys.revoke.mutationOptions({
      onSuccess: () => {
        toast({ title: "Key revoked", description: "Requests with it are refused from now on." });
        void invalidate();
      },
    }),
  );

  const createErrors = formErrors(create.error, ["name"] as const);

  function onCreate(event: FormEvent) {
    event.preventDefault();
    setCreated(null);
    create.mutate({ name });
  }

  const columns = useMemo(
    () => [
      col.accessor("name", { header: "Name", cell: ({ getValue }) => <span className="break-all">{getValue()}</span> }),
      col.accessor("prefix", { header: "Key", meta: { hideBelow: "md" }, enableSorting: false, cell: ({ getValue }) => <code>{getValue()}…</code> }),
      col.accessor("createdAt", { header: "Created", meta: { hideBelow: "md" }, cell: ({ getValue }) => <LocalTime iso={getValue()} /> }),
      col.accessor("lastUsedAt", {
        header: "Last used",
        meta: { hideBelow: "sm" },
        cell: ({ getValue }) => {
          const at = getValue();
          return at ? <LocalTime iso={at} /> : <span className="text-muted-foreground">Never</span>;
        },
      }),
      col.accessor("revokedAt", {
        header: "Status",
        cell: ({ getValue }) => {
          const at = getValue();
          return at ? (
            <Badge tone="danger">
              Revoked <LocalTime iso={at} dateOnly />
            </Badge>
          ) : (
            <Badge tone="success">Active</Badge>
          );
        },
      }),
      col.display({
        id: "actions",
        header: "Actions",
        meta: { srOnlyHeader: true },
        cell: ({ row }) =>
          !row.original.revokedAt && (
            <div className="flex justify-end">
              <ConfirmButton
                label="Revoke"
                title={`Revoke “${row.original.name}”?`}
                confirmLabel="Revoke key"
                disabled={revoke.isPending}
                onConfirm={() => revoke.mutate({ keyId: row.original.id })}
              >
                <p>Requests with this key will be refused at once. This cannot be undone.</p>
              </ConfirmButton>
            </div>
          ),
      }),
    ],
    [revoke],
  );

  return (
    <div className="flex flex-col gap-4">
      <PageHeader title="API keys" description="Keys let your own systems use the API for the whole organization. Keep them secret: never put one in a web page or an app." />
      <Section title="Create a key">
        <form onSubmit={onCreate} className="grid grid-cols-1 items-start gap-3 sm:grid-cols-[minmax(0,28rem)_auto]">
          <Field label="Name" hint="So you can tell your keys apart later." error={createErrors.fields.name}>
            <Input value={name} onChange={(e) => setName(e.target.value)} placeholder="e.g. CRM integration" required maxLength={100} />
          </Field>
          <Button variant="primary" type="submit" className="sm:mt-6.5" disabled={create.isPending || !name.trim()}>
            {create.isPending ? "Creating…" : "Create key"}
          </Button>
        </form>
        {createErrors.message && <Alert tone="error" className="mt-3">{createErrors.message}</Alert>}
        {created && (
          <Alert tone="success" className="mt-3" data-testid="new-key">
            <p>
              <strong>Key “{created.name}” created.</strong> Copy it now: it is shown only this once.
            </p>
            <SecretValue value={created.key} testId="new-key-value" />
          </Alert>
        )}
      </Section>

      {keys.data?.demoKey && (
        <Section title="Demo key" description="Created by the demo data on first start. Revoke it below when you no longer need it.">
          <SecretValue value={keys.data.demoKey.key} testId="demo-key-value" />
        </Section>
      )}

      <Section title="Keys">
        {revoke.isError && <Alert tone="error" className="mb-3">{errorMessage(revoke.error)}</Alert>}
        <DataTable
          columns={columns}
          data={keys.data?.apiKeys ?? []}
          getRowId={(key) => key.id}
          caption="API keys of this organization"
          isLoading={keys.isPending}
          error={keys.error}
          onRetry={() => void keys.refetch()}
          empty={{ title: "No API keys yet", description: "Create one above to connect your systems." }}
          rowTestId={(key) => `key-row-${key.name}`}
        />
      </Section>
    </div>
  );
}
