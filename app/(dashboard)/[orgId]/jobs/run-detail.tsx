"use client";

import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/server/trpc/client/react";
import { Alert } from "../../../_components/ui/alert";
import { IdDetails } from "../../../_components/ui/id-details";
import { ErrorState, Loading } from "../../../_components/ui/states";
import { Table, TableBody, TableCaption, TableCell, TableHead, TableHeader, TableRow } from "../../../_components/ui/table";
import { LocalTime } from "../../../_components/ui/time";
import { humanize } from "../../../_components/ui/format";
import { stepName, stepOpName } from "./job-names";

export type RunScope = "organization" | "all";

function Output({ output, redacted }: { output: unknown; redacted: boolean }) {
  if (redacted) return <span className="text-muted-foreground">Hidden (not provably about this organization)</span>;
  if (output === null || output === undefined) return <>—</>;
  return (
    <details>
      <summary className="cursor-pointer">Show</summary>
      <pre className="max-w-[min(30rem,80vw)] overflow-x-auto text-xs whitespace-pre-wrap break-all">{JSON.stringify(output, null, 2)}</pre>
    </details>
  );
}

/** One run's error, output, steps and attempts (the expanded row of the jobs table). */
export function RunDetail({ runId, functionId, eventName, scope }: { runId: string; functionId: string; eventName: string; scope: RunScope }) {
  const trpc = useTRPC();
  const run = useQuery(trpc.jobs.getRun.queryOptions({ runId, scope }));
  if (run.isPending) return <Loading rows={2} />;
  if (run.isError) return <ErrorState error={run.error} retry={() => void run.refetch()} />;
  const data = run.data;
  return (
    <div className="flex min-w-0 flex-col gap-3">
      {data.error && (
        <Alert tone="error">
          <strong>{data.error.name}:</strong> {data.error.message}
          {data.error.stack && (
            <details>
              <summary className="cursor-pointer">Stack</summary>
              <pre className="overflow-x-auto text-xs whitespace-pre-wrap break-all">{data.error.stack}</pre>
            </details>
          )}
        </Alert>
      )}
      <div>
        <h3 className="mb-1">Output</h3>
        <Output output={data.output} redacted={data.outputRedacted} />
      </div>
      <div>
        <h3 className="mb-1">Steps</h3>
        {data.steps.length === 0 ? (
          <p className="text-muted-foreground">No steps yet.</p>
        ) : (
          <Table>
            <TableCaption>Steps of this run</TableCaption>
            <TableHeader>
              <TableRow>
                <TableHead>Step</TableHead>
                <TableHead className="max-sm:hidden">Kind</TableHead>
                <TableHead>Status</TableHead>
                <TableHead numeric>Failed attempts</TableHead>
                <TableHead className="max-md:hidden">Wakes / waits</TableHead>
                <TableHead className="max-md:hidden">Output</TableHead>
                <TableHead>Error</TableHead>
              </TableRow>
            </TableHeader>
            <TableBody>
              {data.steps.map((step) => (
                <TableRow key={step.hashedId}>
                  <TableCell>{step.name || stepName(step.stepId)}</TableCell>
                  <TableCell className="max-sm:hidden">{stepOpName(step.op)}</TableCell>
                  <TableCell>{humanize(step.status)}</TableCell>
                  <TableCell numeric>{step.attempts}</TableCell>
                  <TableCell className="max-md:hidden">
                    {step.wakeAt && <LocalTime iso={step.wakeAt} />}
                    {step.waitEvent && <div className="text-sm text-muted-foreground">waits for “{step.waitEvent}”</div>}
                    {!step.wakeAt && !step.waitEvent && "—"}
                  </TableCell>
                  <TableCell className="max-md:hidden">
                    <Output output={step.output} redacted={step.outputRedacted} />
                  </TableCell>
                  <TableCell>{step.error ? `${step.error.name}: ${step.error.message}` : "—"}</TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        )}
      </div>
      <div>
        <h3 className="mb-1">Attempts</h3>
        <Table>
          <TableCaption>Attempts of this run</TableCaption>
          <TableHeader>
            <TableRow>
              <TableHead>Started</TableHead>
              <TableHead className="max-sm:hidden">Step</TableHead>
              <TableHead numeric>Attempt</TableHead>
              <TableHead>Outcome</TableHead>
              <TableHead numeric className="max-sm:hidden">
                Time
              </TableHead>
              <TableHead className="max-md:hidden">Error</TableHead>
            </TableRow>
          </TableHeader>
          <TableBody>
            {data.attempts.map((attempt, i) => (
              <TableRow key={i}>
                <TableCell>
                  <LocalTime iso={attempt.startedAt} />
                </TableCell>
                <TableCell className="max-sm:hidden">{attempt.stepName ?? stepName(attempt.stepId)}</TableCell>
                <TableCell numeric>{attempt.attempt}</TableCell>
                <TableCell>
                  {humanize(attempt.outcome)}
                  {attempt.httpStatus !== null && ` (HTTP ${attempt.httpStatus})`}
                </TableCell>
                <TableCell numeric className="max-sm:hidden">
                  {attempt.durationMs} ms
                </TableCell>
                <TableCell className="max-md:hidden">{attempt.error ? `${attempt.error.name}: ${attempt.error.message}` : "—"}</TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      </div>
      <IdDetails
        label="Technical details"
        ids={[
          { label: "Run ID", value: runId },
          { label: "Function", value: functionId },
          ...(eventName ? [{ label: "Event", value: eventName }] : []),
        ]}
      />
    </div>
  );
}
