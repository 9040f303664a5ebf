"use client";

import dynamic from "next/dynamic";
import { useCan } from "../../../_components/org-context";
import { PageHeader } from "../../../_components/ui/page-header";
import { Forbidden, Loading } from "../../../_components/ui/states";
import { BATCH_SIZE } from "./csv-import";
import { ImportFileStep } from "./import-file-step";
import { useCsvImport } from "./use-csv-import";

// The steps after the file are fetched once a file is chosen (the page opens on the first step only).
const stepLoading = () => <Loading />;
const ImportMappingStep = dynamic(() => import("./import-mapping-step").then((m) => m.ImportMappingStep), { loading: stepLoading });
const ImportPreviewStep = dynamic(() => import("./import-preview-step").then((m) => m.ImportPreviewStep), { loading: stepLoading });
const ImportRunStep = dynamic(() => import("./import-run-step").then((m) => m.ImportRunStep), { loading: stepLoading });
const RejectedRowsSection = dynamic(() => import("./import-run-step").then((m) => m.RejectedRowsSection), { loading: stepLoading });

/**
 * Bulk import from a CSV file, in four steps (agent and file, columns, preview, import); the state and the rules live in
 * `useCsvImport`, each step is its own section.
 */
export function ImportView() {
  const can = useCan();
  const state = useCsvImport(can.admin);
  if (!can.admin) return <Forbidden what="Importing contacts" />;
  const { file, effectiveMapping, checks } = state;
  return (
    <div className="flex flex-col gap-4">
      <PageHeader
        title="Import contacts"
        description={`Enroll a CSV file of contacts into an agent's sequence. Every row is checked with the same rules as when your systems enroll contacts, and sent in batches of up to ${BATCH_SIZE.toLocaleString()}.`}
      />
      <ImportFileStep state={state} />
      {file && state.agentId && state.agent.isPending && <Loading label="Loading the agent…" />}
      {file && effectiveMapping && <ImportMappingStep state={state} file={file} mapping={effectiveMapping} />}
      {file && checks && <ImportPreviewStep state={state} file={file} checks={checks} />}
      {file && checks && <ImportRunStep state={state} />}
      {file && checks && state.rejected.length > 0 && <RejectedRowsSection state={state} file={file} />}
    </div>
  );
}
