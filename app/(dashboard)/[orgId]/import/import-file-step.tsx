"use client";

import { Alert } from "../../../_components/ui/alert";
import { Badge } from "../../../_components/ui/badge";
import { Section } from "../../../_components/ui/card";
import { Field } from "../../../_components/ui/field";
import { ErrorState } from "../../../_components/ui/states";
import { AgentPicker } from "../conversations/_components/agent-picker";
import { MAX_IMPORT_ROWS } from "./parse-csv";
import type { CsvImport } from "./use-csv-import";

/** Step 1: the agent whose sequence the contacts join, and the file. */
export function ImportFileStep({ state }: { state: CsvImport }) {
  const { agent, inputVariables, file, parsing, parseError } = state;
  return (
    <Section title="1. Agent and file">
      <div className="flex flex-col gap-3">
        <AgentPicker id="import-agent" value={state.agentId} onChange={state.chooseAgent} excludeArchived />
        {agent.isError && <ErrorState error={agent.error} retry={() => void agent.refetch()} />}
        {agent.data && (
          <p className="text-sm text-muted-foreground">
            {agent.data.status === "PAUSED" && "This agent is paused: its sequences are created and wait until it is resumed. "}
            {inputVariables.length > 0
              ? `Input variables: ${inputVariables.map((v) => `${v.displayName}${v.required ? " (required)" : ""}`).join(", ")}.`
              : "This agent has no input variables."}
          </p>
        )}
        <Field label="CSV file" id="csv-file" className="max-w-120" hint={`First line: column names. Up to ${MAX_IMPORT_ROWS.toLocaleString()} rows; large files are read in the background.`}>
          <input
            type="file"
            accept=".csv,text/csv"
            className="min-w-0 text-sm file:mr-3 file:cursor-pointer file:rounded-md file:border file:border-border file:bg-card file:px-3 file:py-1.5 file:font-semibold"
            onChange={(e) => void state.loadFile(e.target.files?.[0])}
            disabled={Boolean(parsing) || Boolean(state.run?.running)}
            id="csv-file"
            aria-describedby="csv-file-hint"
          />
        </Field>
        <div aria-live="polite" className="flex flex-col gap-2">
          {parsing && <p className="text-sm text-muted-foreground">Reading the file… {parsing.rowsRead.toLocaleString()} rows so far.</p>}
          {parseError && <Alert tone="error">{parseError}</Alert>}
          {file && (
            <p data-testid="file-summary" className="flex flex-wrap items-center gap-2 break-all">
              <span>
                <strong>{file.name}</strong>: {file.rows.length.toLocaleString()} rows, {file.headers.length} columns.
              </span>
              {file.truncated && <Badge tone="danger">Only the first {MAX_IMPORT_ROWS.toLocaleString()} rows were read</Badge>}
            </p>
          )}
          {file && file.problems.length > 0 && (
            <Alert tone="warning" role="note">
              <details>
                <summary className="cursor-pointer">The file has {file.problems.length} formatting problem(s); those rows are checked as read.</summary>
                <ul className="mt-1 list-disc pl-5">
                  {file.problems.map((problem, index) => (
                    <li key={index}>
                      {problem.row ? `Row ${problem.row}: ` : ""}
                      {problem.message}
                    </li>
                  ))}
                </ul>
              </details>
            </Alert>
          )}
        </div>
      </div>
    </Section>
  );
}
