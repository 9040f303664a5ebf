"use client";

import { useMutation, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useMemo, useRef, useState } from "react";
import { errorMessage, useTRPC } from "@/server/trpc/client/react";
import { useCan, useOrgPath } from "../../../_components/org-context";
import { ErrorState, Forbidden, Loading, PageHeader } from "../../../_components/states";
import { AgentPicker } from "../conversations/_components/agent-picker";
import styles from "../conversations/_components/console-ops.module.css";
import {
  autoMap,
  BATCH_SIZE,
  batchIdempotencyKey,
  buildContact,
  CONTACT_FIELDS,
  digestBytes,
  importKeyBase,
  markFileDuplicates,
  planBatches,
  rejectedRowsCsv,
  suggestSlug,
  type ColumnMapping,
  type ContactField,
  type ImportBatch,
  type ImportOptions,
  type RejectedRow,
  type RowCheck,
} from "./csv-import";
import { MAX_IMPORT_ROWS, parseCsvFile, type ParsedCsv } from "./parse-csv";

type LoadedFile = ParsedCsv & { name: string; size: number; digest: string };
type BatchOutcome = { batch: ImportBatch; batchId: string | null; accepted: number; rejected: number; replayed: boolean };
type ImportRun = {
  batches: ImportBatch[];
  outcomes: BatchOutcome[];
  serverRejected: RejectedRow[];
  error: unknown;
  running: boolean;
};

const PREVIEW_PAGE_SIZE = 25;

function download(filename: string, text: string) {
  const url = URL.createObjectURL(new Blob([text], { type: "text/csv;charset=utf-8" }));
  const link = document.createElement("a");
  link.href = url;
  link.download = filename;
  document.body.appendChild(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/**
 * Bulk import from a CSV file: parse (streamed, in a worker for large files), map columns, check every row with the
 * bulk API's own rules on the server, then submit the valid rows in batches of ≤ 1,000 through the bulk enrollment
 * service, one idempotency key per batch derived from the file, agent, mapping and batch, so submitting the same import
 * again schedules nobody twice. Progress covers batches sent and sequences created; rejected rows download as CSV.
 */
export function ImportView() {
  const can = useCan();
  const path = useOrgPath();
  const trpc = useTRPC();
  const [agentId, setAgentId] = useState("");
  const agent = useQuery({ ...trpc.agents.getConfig.queryOptions({ agentId }), enabled: Boolean(agentId) && can.admin });
  const [file, setFile] = useState<LoadedFile | null>(null);
  const [parsing, setParsing] = useState<{ rowsRead: number } | null>(null);
  const [parseError, setParseError] = useState<string | null>(null);
  const [mapping, setMapping] = useState<ColumnMapping | null>(null);
  const [options, setOptions] = useState<ImportOptions>({ timezone: "", groupByField: "", allowDuplicates: false });
  const [checks, setChecks] = useState<RowCheck[] | null>(null);
  const [checking, setChecking] = useState<{ done: number } | null>(null);
  const [checkError, setCheckError] = useState<unknown>(null);
  const [previewFilter, setPreviewFilter] = useState<"all" | "problems">("problems");
  const [previewPage, setPreviewPage] = useState(1);
  const [run, setRun] = useState<ImportRun | null>(null);
  const fileInput = useRef<HTMLInputElement>(null);

  const validateRows = useMutation(trpc.enrollment.validateImportRows.mutationOptions());
  const submitBatch = useMutation(trpc.enrollment.submitImportBatch.mutationOptions());
  const batchIds = (run?.outcomes ?? []).flatMap((o) => (o.batchId ? [o.batchId] : []));
  const acceptedTotal = (run?.outcomes ?? []).reduce((sum, o) => sum + o.accepted, 0);
  const progress = useQuery({
    ...trpc.enrollment.importProgress.queryOptions({ batchIds }),
    enabled: batchIds.length > 0,
    refetchInterval: (query) => {
      const batches = query.state.data?.batches ?? [];
      const created = batches.reduce((sum, b) => sum + b.created, 0);
      return run?.running || created < acceptedTotal || batches.some((b) => b.status !== "completed") ? 1000 : false;
    },
  });
  const createdTotal = (progress.data?.batches ?? []).reduce((sum, b) => sum + b.created, 0);

  const inputVariables = useMemo(() => agent.data?.inputVariables ?? [], [agent.data]);
  const resetChecks = () => {
    setChecks(null);
    setCheckError(null);
    setRun(null);
    setPreviewPage(1);
  };

  if (!can.admin) return <Forbidden what="Importing contacts" />;

  const chooseAgent = (id: string) => {
    if (id === agentId) return;
    setAgentId(id);
    setMapping(null);
    resetChecks();
  };

  async function loadFile(selected: File | undefined) {
    resetChecks();
    setFile(null);
    setMapping(null);
    setParseError(null);
    if (!selected) return;
    setParsing({ rowsRead: 0 });
    try {
      const [parsed, digest] = await Promise.all([
        parseCsvFile(selected, (rowsRead) => setParsing({ rowsRead })),
        selected.arrayBuffer().then((buffer) => digestBytes(new Uint8Array(buffer))),
      ]);
      if (parsed.headers.length === 0 || parsed.rows.length === 0) {
        setParseError("The file has no rows under a header line.");
      } else {
        setFile({ ...parsed, name: selected.name, size: selected.size, digest });
      }
    } catch (error) {
      setParseError(`The file could not be read as CSV: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      setParsing(null);
    }
  }

  // Auto-mapping, once the file and the agent's variables are known (editable below).
  const effectiveMapping: ColumnMapping | null = mapping ?? (file && agent.data ? autoMap(file.headers, inputVariables) : null);
  const setMappingAndReset = (next: ColumnMapping) => {
    setMapping(next);
    resetChecks();
  };
  const setOptionsAndReset = (next: ImportOptions) => {
    setOptions(next);
    resetChecks();
  };
  const mappedColumns = new Set([...Object.values(effectiveMapping?.fields ?? {}), ...(effectiveMapping?.variables ?? []).map((v) => v.column)]);
  const missingRequired = inputVariables.filter((v) => v.required && !effectiveMapping?.variables.some((m) => m.slug.trim() === v.slug));
  const variableSlugs = (effectiveMapping?.variables ?? []).map((v) => v.slug.trim()).filter(Boolean);

  async function checkRows() {
    if (!file || !effectiveMapping) return;
    setMapping(effectiveMapping);
    setChecks(null);
    setCheckError(null);
    setRun(null);
    setChecking({ done: 0 });
    const results: RowCheck[] = [];
    try {
      for (let start = 0; start < file.rows.length; start += BATCH_SIZE) {
        const rows = file.rows.slice(start, start + BATCH_SIZE).map((row) => buildContact(row, effectiveMapping));
        const answer = await validateRows.mutateAsync({
          agentId,
          rows,
          ...(options.timezone.trim() ? { timezone: options.timezone.trim() } : {}),
          ...(options.groupByField ? { groupByField: options.groupByField } : {}),
        });
        for (const row of answer.rows) results[start + row.index] = row.ok ? row : { ok: false, reason: row.reason, error: row.error };
        setChecking({ done: Math.min(file.rows.length, start + BATCH_SIZE) });
      }
      setChecks(markFileDuplicates(results, options.allowDuplicates));
      setPreviewFilter("problems");
      setPreviewPage(1);
    } catch (error) {
      setCheckError(error);
    } finally {
      setChecking(null);
    }
  }

  async function runImport(resume: ImportRun | null) {
    if (!file || !effectiveMapping || !checks) return;
    const batches = resume?.batches ?? planBatches(checks);
    const outcomes = [...(resume?.outcomes ?? [])];
    const serverRejected = [...(resume?.serverRejected ?? [])];
    setRun({ batches, outcomes, serverRejected, error: null, running: true });
    try {
      const base = await importKeyBase({ fileDigest: file.digest, agentId, mapping: effectiveMapping, options });
      for (const batch of batches.slice(outcomes.length)) {
        const result = await submitBatch.mutateAsync({
          agentId,
          idempotencyKey: batchIdempotencyKey(base, batch),
          contacts: batch.rows.map((row) => buildContact(file.rows[row]!, effectiveMapping)),
          ...(options.timezone.trim() ? { timezone: options.timezone.trim() } : {}),
          ...(options.groupByField ? { groupByField: options.groupByField } : {}),
          ...(options.allowDuplicates && !options.groupByField ? { allowDuplicates: true } : {}),
        });
        for (const rejection of result.rejected) {
          const row = batch.rows[rejection.index];
          if (row !== undefined) serverRejected.push({ row, reason: rejection.reason, error: rejection.error });
        }
        outcomes.push({ batch, batchId: result.batchId, accepted: result.accepted, rejected: result.rejected.length, replayed: result.replayed });
        setRun({ batches, outcomes: [...outcomes], serverRejected: [...serverRejected], error: null, running: true });
      }
      setRun({ batches, outcomes, serverRejected, error: null, running: false });
    } catch (error) {
      setRun({ batches, outcomes, serverRejected, error, running: false });
    }
  }

  const previewRejected: RejectedRow[] = (checks ?? []).flatMap((check, row) => (check.ok ? [] : [{ row, reason: check.reason, error: check.error }]));
  const rejected: RejectedRow[] = [...previewRejected, ...(run?.serverRejected ?? [])];
  const readyCount = (checks ?? []).filter((check) => check.ok).length;
  const reasonCounts = new Map<string, number>();
  for (const r of previewRejected) reasonCounts.set(r.reason, (reasonCounts.get(r.reason) ?? 0) + 1);
  const previewRows = (checks ?? []).map((check, row) => ({ row, check })).filter(({ check }) => previewFilter === "all" || !check.ok);
  const previewPages = Math.max(1, Math.ceil(previewRows.length / PREVIEW_PAGE_SIZE));
  const plannedBatches = checks ? planBatches(checks) : [];
  const importDone = run && !run.running && !run.error && run.outcomes.length === run.batches.length;
  const allReplayed = importDone && run.outcomes.length > 0 && run.outcomes.every((o) => o.replayed);
  const creationDone = importDone && createdTotal >= acceptedTotal && (progress.data?.batches ?? []).every((b) => b.status === "completed");
  const column = (field: ContactField) => effectiveMapping?.fields[field];

  return (
    <>
      <PageHeader
        title="Import contacts"
        description={
          <>
            Enroll a CSV file of contacts into an agent&apos;s sequence. Rows are checked with the same rules as{" "}
            <code>POST /agents/&#123;agentId&#125;/schedule/sequences</code> and sent in batches of up to {BATCH_SIZE.toLocaleString()}.
          </>
        }
      />

      <section className="panel" aria-labelledby="step-file">
        <h2 id="step-file" style={{ marginTop: 0 }}>
          1. Agent and file
        </h2>
        <div className="row">
          <AgentPicker id="import-agent" value={agentId} onChange={chooseAgent} excludeArchived />
        </div>
        {agent.isError && <ErrorState error={agent.error} retry={() => void agent.refetch()} />}
        {agent.data && (
          <p className="hint">
            {agent.data.status === "PAUSED" && "This agent is paused: its sequences are created and wait until it is resumed. "}
            {inputVariables.length > 0
              ? `Input variables: ${inputVariables.map((v) => `${v.slug}${v.required ? " (required)" : ""}`).join(", ")}.`
              : "This agent has no input variables."}
          </p>
        )}
        <div className="field" style={{ maxWidth: 480 }}>
          <label htmlFor="csv-file">CSV file</label>
          <input
            ref={fileInput}
            id="csv-file"
            type="file"
            accept=".csv,text/csv"
            aria-describedby="csv-file-hint"
            onChange={(e) => void loadFile(e.target.files?.[0])}
            disabled={Boolean(parsing) || Boolean(run?.running)}
          />
          <span id="csv-file-hint" className="hint">
            First line: column names. Up to {MAX_IMPORT_ROWS.toLocaleString()} rows; large files are read in the background.
          </span>
        </div>
        <div aria-live="polite">
          {parsing && <p className="hint">Reading the file… {parsing.rowsRead.toLocaleString()} rows so far.</p>}
          {parseError && (
            <p className="alert alert-error" role="alert">
              {parseError}
            </p>
          )}
          {file && (
            <p data-testid="file-summary">
              <strong>{file.name}</strong>: {file.rows.length.toLocaleString()} rows, {file.headers.length} columns.
              {file.truncated && <span className="badge badge-danger"> only the first {MAX_IMPORT_ROWS.toLocaleString()} rows were read</span>}
            </p>
          )}
          {file && file.problems.length > 0 && (
            <details className="alert alert-warn">
              <summary>The CSV parser reported {file.problems.length} problem(s); those rows are checked as read.</summary>
              <ul>
                {file.problems.map((problem, index) => (
                  <li key={index}>
                    {problem.row ? `Row ${problem.row}: ` : ""}
                    {problem.message}
                  </li>
                ))}
              </ul>
            </details>
          )}
        </div>
      </section>

      {file && agentId && agent.isPending && <Loading label="Loading the agent…" />}
      {file && effectiveMapping && (
        <section className="panel" aria-labelledby="step-columns">
          <h2 id="step-columns" style={{ marginTop: 0 }}>
            2. Columns
          </h2>
          <p className="hint">Mapped automatically from the column names; change anything that is wrong.</p>
          <div className="table-wrap">
            <table className={styles.mappingTable}>
              <thead>
                <tr>
                  <th scope="col">Contact field</th>
                  <th scope="col">Column</th>
                  <th scope="col">First row</th>
                </tr>
              </thead>
              <tbody>
                {CONTACT_FIELDS.map(({ field, label, hint }) => (
                  <tr key={field}>
                    <td>
                      <label htmlFor={`map-${field}`}>
                        <strong>{label}</strong>
                      </label>
                      <div className="hint">{hint}</div>
                    </td>
                    <td>
                      <select
                        id={`map-${field}`}
                        value={column(field) ?? ""}
                        onChange={(e) =>
                          setMappingAndReset({
                            fields: { ...effectiveMapping.fields, [field]: e.target.value || undefined },
                            variables: effectiveMapping.variables.filter((v) => v.column !== e.target.value),
                          })
                        }
                      >
                        <option value="">— not in the file —</option>
                        {file.headers.map((header) => (
                          <option key={header} value={header}>
                            {header}
                          </option>
                        ))}
                      </select>
                    </td>
                    <td className="hint">{column(field) ? file.rows[0]?.[column(field)!] || "(empty)" : ""}</td>
                  </tr>
                ))}
                {file.headers
                  .filter((header) => !Object.values(effectiveMapping.fields).includes(header))
                  .map((header) => {
                    const variable = effectiveMapping.variables.find((v) => v.column === header);
                    const id = `var-${suggestSlug(header)}`;
                    return (
                      <tr key={header}>
                        <td>
                          <label htmlFor={id}>
                            Column <strong>{header}</strong>
                          </label>
                          <div className="hint">custom input variable</div>
                        </td>
                        <td>
                          <div className="row" style={{ alignItems: "center" }}>
                            <select
                              id={id}
                              style={{ flex: "1 1 140px" }}
                              value={variable ? "variable" : "ignore"}
                              onChange={(e) =>
                                setMappingAndReset({
                                  ...effectiveMapping,
                                  variables:
                                    e.target.value === "variable"
                                      ? [...effectiveMapping.variables, { column: header, slug: suggestSlug(header) }]
                                      : effectiveMapping.variables.filter((v) => v.column !== header),
                                })
                              }
                            >
                              <option value="ignore">Ignore</option>
                              <option value="variable">Send as variable</option>
                            </select>
                            {variable && (
                              <input
                                type="text"
                                aria-label={`Variable name for column ${header}`}
                                style={{ flex: "1 1 140px" }}
                                value={variable.slug}
                                list="agent-variable-slugs"
                                onChange={(e) =>
                                  setMappingAndReset({
                                    ...effectiveMapping,
                                    variables: effectiveMapping.variables.map((v) => (v.column === header ? { ...v, slug: e.target.value } : v)),
                                  })
                                }
                              />
                            )}
                          </div>
                        </td>
                        <td className="hint">{file.rows[0]?.[header] || "(empty)"}</td>
                      </tr>
                    );
                  })}
              </tbody>
            </table>
            <datalist id="agent-variable-slugs">
              {inputVariables.map((v) => (
                <option key={v.slug} value={v.slug}>
                  {v.displayName}
                </option>
              ))}
            </datalist>
          </div>
          {!column("name") || !column("phoneNumber") ? (
            <p className="alert alert-warn" role="status">
              Map a column to {!column("name") ? "Name" : "Phone number"}: without it every row is rejected.
            </p>
          ) : null}
          {missingRequired.length > 0 && (
            <p className="alert alert-warn" role="status">
              The agent requires {missingRequired.map((v) => v.slug).join(", ")}, which no column provides: every row would be rejected (MISSING_INPUT_VARIABLE).
            </p>
          )}
          {mappedColumns.size < file.headers.length && (
            <p className="hint">{file.headers.length - mappedColumns.size} column(s) ignored.</p>
          )}
          <div className="row" style={{ marginTop: 12 }}>
            <div className="field">
              <label htmlFor="default-timezone">Default time zone (optional)</label>
              <input
                id="default-timezone"
                type="text"
                placeholder="e.g. America/New_York"
                value={options.timezone}
                onChange={(e) => setOptionsAndReset({ ...options, timezone: e.target.value })}
              />
              <span className="hint">For rows without a time zone; else inferred from the number, else the agent&apos;s.</span>
            </div>
            <div className="field">
              <label htmlFor="group-by">Chain contacts by (optional)</label>
              <select id="group-by" value={options.groupByField} onChange={(e) => setOptionsAndReset({ ...options, groupByField: e.target.value, allowDuplicates: false })}>
                <option value="">No chaining</option>
                {variableSlugs.map((slug) => (
                  <option key={slug} value={slug}>
                    {slug}
                  </option>
                ))}
              </select>
              <span className="hint">Contacts sharing the value are called one after another.</span>
            </div>
            <div className="field" style={{ flex: "0 1 240px" }}>
              <label className="checkbox">
                <input
                  type="checkbox"
                  checked={options.allowDuplicates}
                  disabled={Boolean(options.groupByField)}
                  onChange={(e) => setOptionsAndReset({ ...options, allowDuplicates: e.target.checked })}
                />
                Allow duplicate numbers
              </label>
            </div>
          </div>
          <div className="actions">
            <button type="button" className="btn btn-primary" onClick={() => void checkRows()} disabled={Boolean(checking) || Boolean(run?.running)}>
              {checks ? "Check rows again" : "Check rows"}
            </button>
            {checking && (
              <span className="hint" aria-live="polite">
                Checked {checking.done.toLocaleString()} of {file.rows.length.toLocaleString()} rows…
              </span>
            )}
          </div>
          {Boolean(checkError) && <ErrorState error={checkError} retry={() => void checkRows()} />}
        </section>
      )}

      {file && checks && (
        <section className="panel" aria-labelledby="step-preview">
          <h2 id="step-preview" style={{ marginTop: 0 }}>
            3. Preview
          </h2>
          <div className="grid" style={{ marginBottom: 12 }}>
            <div className="stat">
              <div className="label">Ready to import</div>
              <div className="value" data-testid="ready-count">
                {readyCount.toLocaleString()}
              </div>
            </div>
            <div className="stat">
              <div className="label">Will be rejected</div>
              <div className="value" data-testid="problem-count">
                {previewRejected.length.toLocaleString()}
              </div>
            </div>
          </div>
          {reasonCounts.size > 0 && (
            <ul className="hint">
              {[...reasonCounts].map(([reason, count]) => (
                <li key={reason}>
                  <code>{reason}</code>: {count.toLocaleString()}
                </li>
              ))}
            </ul>
          )}
          <div className="tabs" role="tablist" aria-label="Rows to show">
            <button type="button" role="tab" aria-selected={previewFilter === "problems"} onClick={() => (setPreviewFilter("problems"), setPreviewPage(1))}>
              Rows with problems ({previewRejected.length.toLocaleString()})
            </button>
            <button type="button" role="tab" aria-selected={previewFilter === "all"} onClick={() => (setPreviewFilter("all"), setPreviewPage(1))}>
              All rows ({checks.length.toLocaleString()})
            </button>
          </div>
          {previewRows.length === 0 ? (
            <p className="hint">No problems: every row passed.</p>
          ) : (
            <div className="table-wrap">
              <table data-testid="preview">
                <thead>
                  <tr>
                    <th scope="col" className="num">
                      Row
                    </th>
                    <th scope="col">Name</th>
                    <th scope="col">Phone</th>
                    <th scope="col">Check</th>
                  </tr>
                </thead>
                <tbody>
                  {previewRows.slice((previewPage - 1) * PREVIEW_PAGE_SIZE, previewPage * PREVIEW_PAGE_SIZE).map(({ row, check }) => (
                    <tr key={row}>
                      <td className="num">{row + 1}</td>
                      <td>{column("name") ? file.rows[row]?.[column("name")!] : ""}</td>
                      <td>
                        {column("phoneNumber") ? file.rows[row]?.[column("phoneNumber")!] : ""}
                        {check.ok && <div className="hint">{check.phoneNumber} · {check.timezone}</div>}
                      </td>
                      <td>
                        {check.ok ? (
                          <span className="badge badge-ok">ok</span>
                        ) : (
                          <>
                            <span className="badge badge-danger">{check.reason}</span>
                            <div className="hint">{check.error}</div>
                          </>
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          {previewPages > 1 && (
            <nav className="actions" aria-label="Preview pages" style={{ marginTop: 8 }}>
              <button type="button" className="btn btn-small" disabled={previewPage <= 1} onClick={() => setPreviewPage((p) => p - 1)}>
                Previous
              </button>
              <span className="hint">
                Page {previewPage} of {previewPages}
              </span>
              <button type="button" className="btn btn-small" disabled={previewPage >= previewPages} onClick={() => setPreviewPage((p) => p + 1)}>
                Next
              </button>
            </nav>
          )}
        </section>
      )}

      {file && checks && (
        <section className="panel" aria-labelledby="step-import">
          <h2 id="step-import" style={{ marginTop: 0 }}>
            4. Import
          </h2>
          {readyCount === 0 ? (
            <p className="alert alert-warn">No row can be imported. Fix the file or the mapping and check again.</p>
          ) : (
            <div className="actions">
              <button type="button" className="btn btn-primary" disabled={Boolean(run?.running)} onClick={() => void runImport(null)}>
                {run ? "Submit this import again" : `Import ${readyCount.toLocaleString()} contacts`}
              </button>
              <span className="hint">
                {plannedBatches.length} batch{plannedBatches.length === 1 ? "" : "es"}, each with its own idempotency key: submitting the same file again schedules nobody twice.
              </span>
            </div>
          )}
          {run && (
            <div style={{ marginTop: 16 }} aria-live="polite">
              <div className={styles.progressRow}>
                <label htmlFor="batches-progress">
                  Batches sent: <strong data-testid="batches-sent">{run.outcomes.length}</strong> of {run.batches.length}
                </label>
                <progress id="batches-progress" max={run.batches.length} value={run.outcomes.length} />
              </div>
              <div className={styles.progressRow}>
                <label htmlFor="created-progress">
                  Sequences created: <strong data-testid="sequences-created">{createdTotal.toLocaleString()}</strong> of {acceptedTotal.toLocaleString()} accepted
                </label>
                <progress id="created-progress" max={Math.max(acceptedTotal, 1)} value={Math.min(createdTotal, acceptedTotal)} />
                <span className="hint">Sequences are created in the background after each batch is accepted.</span>
              </div>
              <ul className="hint">
                {run.outcomes.map((outcome) => (
                  <li key={outcome.batch.position}>
                    Rows {(outcome.batch.firstRow + 1).toLocaleString()}–{(outcome.batch.lastRow + 1).toLocaleString()}: {outcome.accepted.toLocaleString()} accepted
                    {outcome.rejected > 0 ? `, ${outcome.rejected} rejected` : ""}
                    {outcome.replayed ? " — already imported before, nothing new scheduled" : ""}
                  </li>
                ))}
              </ul>
              {Boolean(run.error) && (
                <div className="alert alert-error" role="alert">
                  Batch {run.outcomes.length + 1} of {run.batches.length} failed: {errorMessage(run.error)}{" "}
                  <button type="button" className="btn btn-small" onClick={() => void runImport(run)}>
                    Resume
                  </button>
                </div>
              )}
              {importDone && (
                <p className={allReplayed ? "alert alert-warn" : "alert alert-ok"} role="status" data-testid="import-result">
                  {allReplayed
                    ? "This import was already submitted: every batch was recognised by its idempotency key and nobody was scheduled twice."
                    : creationDone
                      ? `Import complete: ${createdTotal.toLocaleString()} sequences created.`
                      : `All ${run.batches.length} batches accepted (${acceptedTotal.toLocaleString()} contacts); sequences are being created.`}
                </p>
              )}
              {importDone && (
                <p>
                  <Link href={path(`/conversations?agent=${encodeURIComponent(agentId)}`)}>See this agent&apos;s conversations</Link>
                </p>
              )}
            </div>
          )}
        </section>
      )}

      {file && checks && rejected.length > 0 && (
        <section className="panel" aria-labelledby="rejected-heading">
          <h2 id="rejected-heading" style={{ marginTop: 0 }}>
            Rejected rows
          </h2>
          <p>
            <strong data-testid="rejected-count">{rejected.length.toLocaleString()}</strong> row{rejected.length === 1 ? "" : "s"} {run ? "were" : "will be"} rejected, each with
            its reason.
          </p>
          <button
            type="button"
            className="btn"
            onClick={async () => download(`rejected-rows-${file.name.replace(/\.csv$/i, "")}.csv`, await rejectedRowsCsv(rejected, file.headers, file.rows))}
          >
            Download rejected rows (CSV)
          </button>
        </section>
      )}
    </>
  );
}
