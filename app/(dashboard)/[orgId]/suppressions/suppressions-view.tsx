"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useMemo, useState, type FormEvent } from "react";
import type { TExportSuppressionsResponse } from "@/server/routers/suppressions/export-suppressions.schema";
import { errorMessage, useTRPC } from "@/server/trpc/client/react";
import { downloadCsv } from "../../../_components/download-csv";
import { useCan } from "../../../_components/org-context";
import type { RouterOutputs } from "../../../_components/router-types";
import { Alert } from "../../../_components/ui/alert";
import { Badge, type BadgeTone } from "../../../_components/ui/badge";
import { Button } from "../../../_components/ui/button";
import { Section } from "../../../_components/ui/card";
import { ConfirmButton } from "../../../_components/ui/confirm-button";
import { columnsFor, DataTable } from "../../../_components/ui/data-table";
import { Field } from "../../../_components/ui/field";
import { Input } from "../../../_components/ui/input";
import { PageHeader } from "../../../_components/ui/page-header";
import { LocalTime } from "../../../_components/ui/time";
import { toast } from "../../../_components/ui/toast";
import { AddSuppressions } from "./add-suppressions";

type Suppression = RouterOutputs["suppressions"]["list"]["suppressions"][number];
const col = columnsFor<Suppression>();

/** How a number came onto the list, in words. */
const SOURCES: Record<Suppression["source"], { label: string; tone: BadgeTone }> = {
  call: { label: "Opted out on a call", tone: "warning" },
  api: { label: "Added through the API", tone: "neutral" },
  console: { label: "Added in the console", tone: "neutral" },
  import: { label: "CSV import", tone: "neutral" },
  sms: { label: "Replied STOP by SMS", tone: "warning" },
};

export function SuppressionsView() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const can = useCan();
  const [page, setPage] = useState(1);
  const [search, setSearch] = useState("");
  const [filter, setFilter] = useState<string | undefined>(undefined);
  const list = useQuery(trpc.suppressions.list.queryOptions({ page, phoneNumber: filter }));
  const invalidate = () => queryClient.invalidateQueries({ queryKey: trpc.suppressions.list.queryKey() });
  const remove = useMutation(
    trpc.suppressions.remove.mutationOptions({
      onSuccess: (_data, input) => {
        toast({ title: "Number removed", description: `${input.phoneNumber} can be enrolled and called again.` });
        void queryClient.invalidateQueries({ queryKey: trpc.suppressions.list.queryKey() });
      },
    }),
  );
  const [exporting, setExporting] = useState(false);
  const [exportError, setExportError] = useState<string | null>(null);

  function onSearch(event: FormEvent) {
    event.preventDefault();
    setPage(1);
    setFilter(search.trim() || undefined);
  }

  async function onExport() {
    setExporting(true);
    setExportError(null);
    try {
      const rows: Array<Record<string, string | null>> = [];
      let after: string | null = null;
      do {
        const chunk: TExportSuppressionsResponse = await queryClient.fetchQuery(trpc.suppressions.export.queryOptions({ afterPhoneNumber: after }, { staleTime: 0 }));
        rows.push(...chunk.suppressions);
        after = chunk.nextAfter;
      } while (after !== null);
      await downloadCsv(`suppressions-${new Date().toISOString().slice(0, 10)}.csv`, rows, ["phoneNumber", "source", "reason", "createdAt"]);
    } catch (error) {
      setExportError(errorMessage(error));
    } finally {
      setExporting(false);
    }
  }

  const isAdmin = can.admin;
  const columns = useMemo(
    () => [
      col.accessor("phoneNumber", { header: "Number", cell: ({ getValue }) => <code className="break-all">{getValue()}</code> }),
      col.accessor("source", {
        header: "Source",
        meta: { hideBelow: "sm" },
        cell: ({ getValue }) => {
          const source = SOURCES[getValue()] ?? { label: getValue(), tone: "neutral" as const };
          return <Badge tone={source.tone}>{source.label}</Badge>;
        },
      }),
      col.accessor("reason", {
        header: "Reason",
        enableSorting: false,
        cell: ({ getValue }) => {
          const reason = getValue();
          return reason ? <span className="break-words">{reason}</span> : <span className="text-muted-foreground">—</span>;
        },
      }),
      col.accessor("createdAt", { header: "Added", meta: { hideBelow: "md" }, cell: ({ getValue }) => <LocalTime iso={getValue()} /> }),
      col.display({
        id: "actions",
        header: "Actions",
        meta: { srOnlyHeader: true },
        cell: ({ row }) =>
          isAdmin && (
            <div className="flex justify-end">
              <ConfirmButton
                label="Remove"
                title={`Remove ${row.original.phoneNumber}?`}
                confirmLabel="Remove from list"
                disabled={remove.isPending}
                onConfirm={() => remove.mutate({ phoneNumber: row.original.phoneNumber })}
              >
                <p>This number can then be enrolled and called again.</p>
              </ConfirmButton>
            </div>
          ),
      }),
    ],
    [isAdmin, remove],
  );

  return (
    <div className="flex flex-col gap-4">
      <PageHeader
        title="Suppressions"
        description="Numbers on this list are never enrolled and never called, by any agent. Contacts who ask not to be called again during a call are added automatically."
        actions={
          <Button type="button" onClick={() => void onExport()} disabled={exporting}>
            {exporting ? "Exporting…" : "Export CSV"}
          </Button>
        }
      />
      {exportError && <Alert tone="error">{exportError}</Alert>}

      {can.support && <AddSuppressions onAdded={() => void invalidate()} />}

      <Section title="Suppressed numbers">
        <form onSubmit={onSearch} role="search" aria-label="Suppressed numbers" className="mb-4 flex flex-wrap items-end gap-3">
          <Field label="Find a number" id="suppression-search" className="w-full sm:w-72">
            <Input type="search" value={search} maxLength={64} onChange={(e) => setSearch(e.target.value)} placeholder="Any format" />
          </Field>
          <Button type="submit">Search</Button>
        </form>
        {remove.isError && (
          <Alert tone="error" className="mb-3">
            {errorMessage(remove.error)}
          </Alert>
        )}
        <DataTable
          columns={columns}
          data={list.data?.suppressions ?? []}
          getRowId={(entry) => entry.phoneNumber}
          caption="Suppressed numbers"
          isLoading={list.isPending}
          error={list.error}
          onRetry={() => void list.refetch()}
          busy={list.isFetching}
          empty={
            filter
              ? { title: "This number is not on the list", description: "It can be enrolled and called." }
              : { title: "No suppressed numbers", description: "Numbers you add, import, or that opt out during calls appear here." }
          }
          rowTestId={(entry) => `suppression-${entry.phoneNumber}`}
        />
        {list.data && (page > 1 || list.data.hasMore) && (
          <nav className="mt-3 flex flex-wrap items-center gap-2" aria-label="Pages">
            <Button size="sm" disabled={page === 1} onClick={() => setPage(page - 1)}>
              Previous
            </Button>
            <span className="text-sm">Page {page}</span>
            <Button size="sm" disabled={!list.data.hasMore} onClick={() => setPage(page + 1)}>
              Next
            </Button>
          </nav>
        )}
      </Section>
    </div>
  );
}
