"use client";

import Link from "next/link";
import { errorMessage } from "@/server/trpc/client/react";
import { saveCsvText } from "../../../_components/download-csv";
import { useOrgPath } from "../../../_components/org-context";
import { Alert } from "../../../_components/ui/alert";
import { Button } from "../../../_components/ui/button";
import { Section } from "../../../_components/ui/card";
import { plural } from "../../../_components/ui/format";
import { rejectedRowsCsv } from "./csv-import";
import type { CsvImport, LoadedFile } from "./use-csv-import";

function Progress({ id, label, max, value, hint }: { id: string; label: React.ReactNode; max: number; value: number; hint?: string }) {
  return (
    <div className="flex flex-col gap-1">
      <label htmlFor={id}>{label}</label>
      <progress id={id} max={max} value={value} className="h-3.5 w-full accent-primary" />
      {hint && <span className="text-sm text-muted-foreground">{hint}</span>}
    </div>
  );
}

/** Step 4: send the ready rows in batches, follow the progress, and what came of it. */
export function ImportRunStep({ state }: { state: CsvImport }) {
  const path = useOrgPath();
  const { run, readyCount, plannedBatches, importDone, allReplayed, creationDone, createdTotal, acceptedTotal } = state;
  return (
    <Section title="4. Import">
      <div className="flex flex-col gap-3">
        {readyCount === 0 ? (
          <Alert tone="warning">No row can be imported. Fix the file or the mapping and check again.</Alert>
        ) : (
          <div className="flex flex-wrap items-center gap-3">
            <Button variant="primary" disabled={Boolean(run?.running)} onClick={() => void state.runImport(null)}>
              {run ? "Submit this import again" : `Import ${readyCount.toLocaleString()} contacts`}
            </Button>
            <span className="text-sm text-muted-foreground">
              Sent in {plural(plannedBatches.length, "batch", "batches")}. Submitting the same file again schedules nobody twice.
            </span>
          </div>
        )}
        {run && (
          <div className="flex flex-col gap-3" aria-live="polite">
            <Progress
              id="batches-progress"
              label={
                <>
                  Batches sent: <strong data-testid="batches-sent">{run.outcomes.length}</strong> of {run.batches.length}
                </>
              }
              max={run.batches.length}
              value={run.outcomes.length}
            />
            <Progress
              id="created-progress"
              label={
                <>
                  Sequences created: <strong data-testid="sequences-created">{createdTotal.toLocaleString()}</strong> of {acceptedTotal.toLocaleString()} accepted
                </>
              }
              max={Math.max(acceptedTotal, 1)}
              value={Math.min(createdTotal, acceptedTotal)}
              hint="Sequences are created in the background after each batch is accepted."
            />
            <ul className="list-disc pl-5 text-sm text-muted-foreground">
              {run.outcomes.map((outcome) => (
                <li key={outcome.batch.position}>
                  Rows {(outcome.batch.firstRow + 1).toLocaleString()}–{(outcome.batch.lastRow + 1).toLocaleString()}: {outcome.accepted.toLocaleString()} accepted
                  {outcome.rejected > 0 ? `, ${outcome.rejected} rejected` : ""}
                  {outcome.replayed ? " — already imported before, nothing new scheduled" : ""}
                </li>
              ))}
            </ul>
            {Boolean(run.error) && (
              <Alert tone="error" className="flex flex-wrap items-center gap-2">
                <span>
                  Batch {run.outcomes.length + 1} of {run.batches.length} failed: {errorMessage(run.error)}
                </span>
                <Button size="sm" onClick={() => void state.runImport(run)}>
                  Resume
                </Button>
              </Alert>
            )}
            {importDone && (
              <Alert tone={allReplayed ? "warning" : "success"} data-testid="import-result">
                {allReplayed
                  ? "This import was already submitted: every batch was recognised and nobody was scheduled twice."
                  : creationDone
                    ? `Import complete: ${createdTotal.toLocaleString()} sequences created.`
                    : `All ${run.batches.length} batches accepted (${acceptedTotal.toLocaleString()} contacts); sequences are being created.`}
              </Alert>
            )}
            {importDone && <Link href={path(`/conversations?agent=${encodeURIComponent(state.agentId)}`)}>See this agent&apos;s conversations</Link>}
          </div>
        )}
      </div>
    </Section>
  );
}

/** Every rejected row (preview and import), with its reason, as a CSV to fix and import again. */
export function RejectedRowsSection({ state, file }: { state: CsvImport; file: LoadedFile }) {
  const { rejected, run } = state;
  return (
    <Section title="Rejected rows">
      <div className="flex flex-col items-start gap-3">
        <p>
          <strong data-testid="rejected-count">{rejected.length.toLocaleString()}</strong> row{rejected.length === 1 ? "" : "s"} {run ? "were" : "will be"} rejected, each
          with its reason.
        </p>
        <Button onClick={async () => saveCsvText(`rejected-rows-${file.name.replace(/\.csv$/i, "")}.csv`, await rejectedRowsCsv(rejected, file.headers, file.rows))}>
          Download rejected rows (CSV)
        </Button>
      </div>
    </Section>
  );
}
