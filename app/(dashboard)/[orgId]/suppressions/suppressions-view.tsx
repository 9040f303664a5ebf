"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRef, useState, type FormEvent } from "react";
import type { TExportSuppressionsResponse } from "@/server/routers/suppressions/export-suppressions.schema";
import { errorMessage, useTRPC } from "@/server/trpc/client/react";
import { ConfirmButton } from "../../../_components/ui/confirm-button";
import { downloadCsv } from "../../../_components/download-csv";
import { LocalTime } from "../../../_components/ui/time";
import { useCan } from "../../../_components/org-context";
import { PageHeader } from "../../../_components/ui/page-header";
import { EmptyState, ErrorState, Loading } from "../../../_components/ui/states";

/** The API's limit per request: a larger CSV is imported in several requests. */
const IMPORT_CHUNK = 10_000;
const PHONE_COLUMNS = ["phonenumber", "phone_number", "phone", "number", "e164"];

type AddOutcome = { added: number; alreadySuppressed: number; rejected: Array<{ index: number; phoneNumber: string }> };

/** The numbers of a CSV file: the column named like a phone number, else the first column; a header row is skipped. */
async function readNumbers(file: File): Promise<string[]> {
  const Papa = (await import("papaparse")).default;
  const rows = Papa.parse<string[]>(await file.text(), { skipEmptyLines: true }).data;
  if (rows.length === 0) return [];
  const header = rows[0]!.map((cell) => cell.trim().toLowerCase());
  const named = header.findIndex((cell) => PHONE_COLUMNS.includes(cell));
  const column = named === -1 ? 0 : named;
  const hasHeader = named !== -1 || !/\d{3}/.test(rows[0]![0] ?? "");
  return (hasHeader ? rows.slice(1) : rows).map((row) => (row[column] ?? "").trim()).filter((value) => value !== "");
}

function Outcome({ outcome }: { outcome: AddOutcome }) {
  return (
    <div className={outcome.rejected.length ? "alert alert-warn" : "alert alert-ok"} role="status" data-testid="suppression-outcome">
      Added {outcome.added.toLocaleString()}, already on the list {outcome.alreadySuppressed.toLocaleString()}
      {outcome.rejected.length > 0 && (
        <>
          , not phone numbers {outcome.rejected.length.toLocaleString()}:{" "}
          {outcome.rejected
            .slice(0, 10)
            .map((item) => `line ${item.index + 1} “${item.phoneNumber}”`)
            .join(", ")}
          {outcome.rejected.length > 10 && "…"}
        </>
      )}
      .
    </div>
  );
}

export function SuppressionsView() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const can = useCan();
  const [page, setPage] = useState(1);
  const [search, setSearch] = useState("");
  const [filter, setFilter] = useState<string | undefined>(undefined);
  const list = useQuery(trpc.suppressions.list.queryOptions({ page, phoneNumber: filter }));
  const invalidate = () => queryClient.invalidateQueries({ queryKey: trpc.suppressions.list.queryKey() });

  const [numbers, setNumbers] = useState("");
  const [reason, setReason] = useState("");
  const [outcome, setOutcome] = useState<AddOutcome | null>(null);
  const add = useMutation(
    trpc.suppressions.add.mutationOptions({
      onSuccess: (data) => {
        setOutcome(data);
        setNumbers("");
        void invalidate();
      },
    }),
  );
  const remove = useMutation(trpc.suppressions.remove.mutationOptions({ onSuccess: () => void invalidate() }));

  const fileInput = useRef<HTMLInputElement>(null);
  const [importing, setImporting] = useState(false);
  const [importError, setImportError] = useState<string | null>(null);
  const importChunk = useMutation(trpc.suppressions.import.mutationOptions());
  const [exporting, setExporting] = useState(false);

  function onAdd(event: FormEvent) {
    event.preventDefault();
    setOutcome(null);
    const items = numbers
      .split(/[\n,;]+/)
      .map((value) => value.trim())
      .filter((value) => value !== "");
    if (items.length > 0) add.mutate({ phoneNumbers: items, reason: reason.trim() || undefined });
  }

  function onSearch(event: FormEvent) {
    event.preventDefault();
    setPage(1);
    setFilter(search.trim() || undefined);
  }

  async function onImport(file: File) {
    setImporting(true);
    setImportError(null);
    setOutcome(null);
    try {
      const items = await readNumbers(file);
      const total: AddOutcome = { added: 0, alreadySuppressed: 0, rejected: [] };
      for (let start = 0; start < items.length; start += IMPORT_CHUNK) {
        const result = await importChunk.mutateAsync({ phoneNumbers: items.slice(start, start + IMPORT_CHUNK), reason: reason.trim() || undefined });
        total.added += result.added;
        total.alreadySuppressed += result.alreadySuppressed;
        total.rejected.push(...result.rejected.map((item) => ({ ...item, index: item.index + start })));
      }
      setOutcome(total);
      void invalidate();
    } catch (error) {
      setImportError(errorMessage(error));
    } finally {
      setImporting(false);
      if (fileInput.current) fileInput.current.value = "";
    }
  }

  async function onExport() {
    setExporting(true);
    try {
      const rows: Array<Record<string, string | null>> = [];
      let after: string | null = null;
      do {
        const chunk: TExportSuppressionsResponse = await queryClient.fetchQuery(trpc.suppressions.export.queryOptions({ afterPhoneNumber: after }, { staleTime: 0 }));
        rows.push(...chunk.suppressions);
        after = chunk.nextAfter;
      } while (after !== null);
      await downloadCsv(`suppressions-${new Date().toISOString().slice(0, 10)}.csv`, rows, ["phoneNumber", "source", "reason", "createdAt"]);
    } finally {
      setExporting(false);
    }
  }

  return (
    <>
      <PageHeader
        title="Suppressions"
        description="Numbers on this list are never enrolled (OPTED_OUT) and never dialed, by any agent. Contacts who opt out during a call are added automatically."
        actions={
          <button className="btn" type="button" onClick={() => void onExport()} disabled={exporting}>
            {exporting ? "Exporting…" : "Export CSV"}
          </button>
        }
      />

      {can.support && (
        <section className="panel" aria-labelledby="add-suppressions">
          <h2 id="add-suppressions" style={{ marginTop: 0 }}>
            Add numbers
          </h2>
          <form onSubmit={onAdd}>
            <div className="field">
              <label htmlFor="suppression-numbers">Phone numbers</label>
              <textarea
                id="suppression-numbers"
                rows={3}
                value={numbers}
                onChange={(e) => setNumbers(e.target.value)}
                placeholder={"+1 415 555 0171\n(212) 555-0142"}
                aria-describedby="suppression-numbers-hint"
              />
              <span id="suppression-numbers-hint" className="hint">
                One per line or separated by commas, in any format. Numbers without a country code are read as North American.
              </span>
            </div>
            <div className="row">
              <div className="field">
                <label htmlFor="suppression-reason">Reason (optional)</label>
                <input id="suppression-reason" type="text" value={reason} maxLength={1000} onChange={(e) => setReason(e.target.value)} placeholder="e.g. asked by email" />
              </div>
              <div className="field" style={{ flex: "0 0 auto" }}>
                <button className="btn btn-primary" type="submit" disabled={add.isPending || !numbers.trim()}>
                  {add.isPending ? "Adding…" : "Add to list"}
                </button>
              </div>
              <div className="field" style={{ flex: "0 0 auto" }}>
                <label htmlFor="suppression-file">Import a CSV</label>
                <input
                  id="suppression-file"
                  ref={fileInput}
                  type="file"
                  accept=".csv,text/csv"
                  disabled={importing}
                  onChange={(e) => {
                    const file = e.target.files?.[0];
                    if (file) void onImport(file);
                  }}
                />
              </div>
            </div>
          </form>
          {importing && <p className="hint">Importing…</p>}
          {add.isError && (
            <div className="alert alert-error" role="alert">
              {errorMessage(add.error)}
            </div>
          )}
          {importError && (
            <div className="alert alert-error" role="alert">
              {importError}
            </div>
          )}
          {outcome && <Outcome outcome={outcome} />}
        </section>
      )}

      <form onSubmit={onSearch} className="row" role="search">
        <div className="field">
          <label htmlFor="suppression-search">Find a number</label>
          <input id="suppression-search" type="search" value={search} maxLength={64} onChange={(e) => setSearch(e.target.value)} placeholder="Any format" />
        </div>
        <div className="field" style={{ flex: "0 0 auto" }}>
          <button className="btn" type="submit">
            Search
          </button>
        </div>
      </form>

      {list.isPending ? (
        <Loading />
      ) : list.isError ? (
        <ErrorState error={list.error} retry={() => void list.refetch()} />
      ) : list.data.suppressions.length === 0 ? (
        <EmptyState title={filter ? "This number is not on the list" : "No suppressed numbers"}>
          {filter ? "It can be enrolled and called." : "Numbers you add, import, or that opt out during calls appear here."}
        </EmptyState>
      ) : (
        <div className="table-wrap">
          <table>
            <caption className="visually-hidden">Suppressed numbers</caption>
            <thead>
              <tr>
                <th scope="col">Number</th>
                <th scope="col">Source</th>
                <th scope="col">Reason</th>
                <th scope="col">Added</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.data.suppressions.map((entry) => (
                <tr key={entry.phoneNumber} data-testid={`suppression-${entry.phoneNumber}`}>
                  <td>
                    <code>{entry.phoneNumber}</code>
                  </td>
                  <td>
                    <span className="badge">{entry.source}</span>
                  </td>
                  <td>{entry.reason ?? <span className="hint">—</span>}</td>
                  <td>
                    <LocalTime iso={entry.createdAt} />
                  </td>
                  <td>
                    {can.admin && (
                      <ConfirmButton
                        label="Remove"
                        title={`Remove ${entry.phoneNumber}?`}
                        confirmLabel="Remove from list"
                        disabled={remove.isPending}
                        onConfirm={() => remove.mutate({ phoneNumber: entry.phoneNumber })}
                      >
                        <p>This number can then be enrolled and called again.</p>
                      </ConfirmButton>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {remove.isError && (
        <div className="alert alert-error" role="alert">
          {errorMessage(remove.error)}
        </div>
      )}
      {list.data && (page > 1 || list.data.hasMore) && (
        <nav className="row" aria-label="Pages">
          <button className="btn" type="button" disabled={page === 1} onClick={() => setPage(page - 1)}>
            Previous
          </button>
          <span className="hint">Page {page}</span>
          <button className="btn" type="button" disabled={!list.data.hasMore} onClick={() => setPage(page + 1)}>
            Next
          </button>
        </nav>
      )}
    </>
  );
}
