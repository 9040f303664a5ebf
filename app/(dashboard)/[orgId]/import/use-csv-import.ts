"use client";

import { useMutation, useQuery } from "@tanstack/react-query";
import { useMemo, useState } from "react";
import { useTRPC } from "@/server/trpc/client/react";
import {
  autoMap,
  BATCH_SIZE,
  batchIdempotencyKey,
  buildContact,
  digestBytes,
  importKeyBase,
  markFileDuplicates,
  planBatches,
  type ColumnMapping,
  type ContactField,
  type ImportBatch,
  type ImportOptions,
  type RejectedRow,
  type RowCheck,
} from "./csv-import";
import { parseCsvFile, type ParsedCsv } from "./parse-csv";

export type LoadedFile = ParsedCsv & { name: string; size: number; digest: string };
export type BatchOutcome = { batch: ImportBatch; batchId: string | null; accepted: number; rejected: number; replayed: boolean };
export type ImportRun = {
  batches: ImportBatch[];
  outcomes: BatchOutcome[];
  serverRejected: RejectedRow[];
  error: unknown;
  running: boolean;
};

/**
 * The state of a CSV import, step by step: parse (streamed, in a worker for large files), map columns, check every row
 * with the bulk API's own rules on the server, then submit the valid rows in batches of ≤ 1,000 through the bulk
 * enrollment service, one idempotency key per batch derived from the file, agent, mapping and batch, so submitting the
 * same import again schedules nobody twice. The page's sections only render what this hook holds.
 */
export function useCsvImport(enabled: boolean) {
  const trpc = useTRPC();
  const [agentId, setAgentId] = useState("");
  const agent = useQuery({ ...trpc.agents.getConfig.queryOptions({ agentId }), enabled: Boolean(agentId) && enabled });
  const [file, setFile] = useState<LoadedFile | null>(null);
  const [parsing, setParsing] = useState<{ rowsRead: number } | null>(null);
  const [parseError, setParseError] = useState<string | null>(null);
  const [mapping, setMapping] = useState<ColumnMapping | null>(null);
  const [options, setOptions] = useState<ImportOptions>({ timezone: "", groupByField: "", allowDuplicates: false });
  const [checks, setChecks] = useState<RowCheck[] | null>(null);
  const [checking, setChecking] = useState<{ done: number } | null>(null);
  const [checkError, setCheckError] = useState<unknown>(null);
  const [run, setRun] = useState<ImportRun | null>(null);

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
  };

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
  const plannedBatches = checks ? planBatches(checks) : [];
  const importDone = Boolean(run && !run.running && !run.error && run.outcomes.length === run.batches.length);
  const allReplayed = importDone && run!.outcomes.length > 0 && run!.outcomes.every((o) => o.replayed);
  const creationDone = importDone && createdTotal >= acceptedTotal && (progress.data?.batches ?? []).every((b) => b.status === "completed");
  const column = (field: ContactField) => effectiveMapping?.fields[field];

  return {
    agentId,
    agent,
    inputVariables,
    chooseAgent,
    file,
    parsing,
    parseError,
    loadFile,
    effectiveMapping,
    setMappingAndReset,
    options,
    setOptionsAndReset,
    mappedColumns,
    missingRequired,
    variableSlugs,
    column,
    checks,
    checking,
    checkError,
    checkRows,
    previewRejected,
    readyCount,
    plannedBatches,
    run,
    runImport,
    createdTotal,
    acceptedTotal,
    importDone,
    allReplayed,
    creationDone,
    rejected,
  };
}

export type CsvImport = ReturnType<typeof useCsvImport>;
