"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { TConsoleAgent } from "@/server/schemas/agent-config";
import type { TTestRunSummary } from "@/server/schemas/agent-tests";
import { errorMessage, useTRPC } from "@/server/trpc/client/react";
import { useCan } from "../../../../../_components/org-context";
import { Alert } from "../../../../../_components/ui/alert";
import { Badge } from "../../../../../_components/ui/badge";
import { Button } from "../../../../../_components/ui/button";
import { Section } from "../../../../../_components/ui/card";
import { Field, FieldRow } from "../../../../../_components/ui/field";
import { IdDetails } from "../../../../../_components/ui/id-details";
import { NativeSelect } from "../../../../../_components/ui/input";
import { EmptyState, ErrorState, Loading } from "../../../../../_components/ui/states";
import { LocalTime } from "../../../../../_components/ui/time";
import { usePromptVersionNames } from "./prompt-version-names";
import { NewTestCaseForm } from "./test-case-form";

const percent = (rate: number | null) => (rate === null ? "—" : `${Math.round(rate * 100)} %`);

function RunResults({ agentId, runId }: { agentId: string; runId: string }) {
  const trpc = useTRPC();
  const run = useQuery(trpc.agentTests.getTestRun.queryOptions({ agentId, runId }, { refetchInterval: (query) => (query.state.data && ["queued", "running"].includes(query.state.data.status) ? 1000 : false) }));
  if (run.isPending) return <Loading rows={2} />;
  if (run.isError) return <ErrorState error={run.error} />;
  return (
    <ul className="mt-2 flex flex-col gap-2">
      {run.data.results.map((result) => (
        <li key={result.testCaseId} className="rounded border border-border p-2 text-sm" data-testid="test-result">
          <div className="flex flex-wrap items-center gap-2">
            <Badge tone={result.status === "passed" ? "success" : result.status === "pending" ? "neutral" : "danger"}>{result.status}</Badge>
            <span className="font-bold">{result.name}</span>
            {result.reason && <span className="text-danger">{result.reason}</span>}
          </div>
          <details className="mt-1">
            <summary>Checks and transcript</summary>
            <ul className="mt-1">
              {result.checks.map((check, index) => (
                <li key={index}>
                  {check.passed ? "✓" : "✗"} {check.expectation} — {check.reason}
                </li>
              ))}
            </ul>
            <ol className="mt-1">
              {result.transcript.map((turn, index) => (
                <li key={index}>
                  <span className="font-bold">{turn.speaker === "agent" ? "Agent" : "Caller"}:</span> {turn.text}
                </li>
              ))}
            </ol>
            {result.toolCalls.length > 0 && <p className="mt-1 font-mono text-xs">{result.toolCalls.map((call) => `${call.name}(${JSON.stringify(call.arguments)}) → ${call.result.ok ? "ok" : "not ok"}`).join("; ")}</p>}
          </details>
        </li>
      ))}
    </ul>
  );
}

function RunRow({ agentId, run, versionName }: { agentId: string; run: TTestRunSummary; versionName: (promptVersionId: string) => string }) {
  const [open, setOpen] = useState(false);
  return (
    <li className="rounded border border-border p-2 text-sm" data-testid="test-run">
      <div className="flex flex-wrap items-center gap-2">
        <Badge tone={run.status !== "completed" ? "neutral" : run.failed === 0 ? "success" : "danger"}>{run.status === "completed" ? `${run.passed}/${run.total} passed` : run.status}</Badge>
        <span>{versionName(run.promptVersionId)}</span>
        <LocalTime iso={run.createdAt} />
        <Button variant="link" size="sm" onClick={() => setOpen(!open)} aria-expanded={open}>
          {open ? "Hide results" : "Show results"}
        </Button>
      </div>
      <IdDetails ids={[{ label: "Run ID", value: run.runId }, { label: "Prompt version ID", value: run.promptVersionId }]} />
      {open && <RunResults agentId={agentId} runId={run.runId} />}
    </li>
  );
}

/** Test cases, runs on a chosen prompt version with per-case results, and the history of runs. */
export function TestRunsPanel({ agent }: { agent: TConsoleAgent }) {
  const agentId = agent.agentId;
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const can = useCan();
  const cases = useQuery(trpc.agentTests.listTestCases.queryOptions({ agentId }));
  const versions = useQuery(trpc.agentTests.listPromptVersions.queryOptions({ agentId }));
  const versionName = usePromptVersionNames(agentId);
  const runs = useQuery(trpc.agentTests.listTestRuns.queryOptions({ agentId, limit: 20 }, { refetchInterval: (query) => (query.state.data?.runs.some((run) => run.status === "queued" || run.status === "running") ? 1000 : false) }));
  const [version, setVersion] = useState("");
  const [adding, setAdding] = useState(false);
  const run = useMutation(
    trpc.agentTests.createTestRun.mutationOptions({
      onSuccess: () => {
        void queryClient.invalidateQueries({ queryKey: trpc.agentTests.listTestRuns.queryKey({ agentId, limit: 20 }) });
        void queryClient.invalidateQueries({ queryKey: trpc.agentTests.listPromptVersions.queryKey({ agentId }) });
      },
    }),
  );
  const remove = useMutation(trpc.agentTests.deleteTestCase.mutationOptions({ onSuccess: () => void queryClient.invalidateQueries({ queryKey: trpc.agentTests.listTestCases.queryKey({ agentId }) }) }));
  return (
    <Section title="Test cases and runs" description="Simulated conversations between the agent and a caller model, then the real analyser: each case checks what the webhook would carry.">
      {cases.isPending ? (
        <Loading rows={2} />
      ) : cases.isError ? (
        <ErrorState error={cases.error} retry={() => void cases.refetch()} />
      ) : cases.data.testCases.length === 0 ? (
        <EmptyState title="No test cases yet" />
      ) : (
        <ul className="flex flex-col gap-1 text-sm" data-testid="test-cases">
          {cases.data.testCases.map((testCase) => (
            <li key={testCase.testCaseId} className="flex flex-wrap items-center gap-2">
              <span className="font-bold">{testCase.name}</span>
              <span className="text-muted-foreground">{testCase.persona.split("\n")[0]}</span>
              {can.admin && (
                <Button variant="link" size="sm" onClick={() => remove.mutate({ agentId, testCaseId: testCase.testCaseId })}>
                  Delete
                </Button>
              )}
            </li>
          ))}
        </ul>
      )}
      {can.admin && (
        <div className="mt-3 flex flex-wrap items-end gap-2">
          <Field label="Prompt version" id="test-run-version">
            <NativeSelect value={version} onChange={(e) => setVersion(e.target.value)}>
              <option value="">Current</option>
              {versions.data?.versions.map((v) => (
                <option key={v.promptVersionId} value={v.promptVersionId}>
                  {versionName(v.promptVersionId)}
                  {v.current ? " (current)" : ""}
                </option>
              ))}
            </NativeSelect>
          </Field>
          <Button variant="primary" disabled={run.isPending || !cases.data?.testCases.length} onClick={() => run.mutate({ agentId, promptVersionId: version || undefined })}>
            {run.isPending ? "Starting…" : "Run all tests"}
          </Button>
          <Button onClick={() => setAdding(!adding)} aria-expanded={adding}>
            {adding ? "Close" : "New test case"}
          </Button>
        </div>
      )}
      {run.isError && <Alert tone="error">{errorMessage(run.error)}</Alert>}
      {adding && <NewTestCaseForm agent={agent} />}
      <h3 className="mt-4 mb-2 font-bold">Runs</h3>
      {runs.data?.runs.length ? (
        <ul className="flex flex-col gap-2">
          {runs.data.runs.map((item) => (
            <RunRow key={item.runId} agentId={agentId} run={item} versionName={versionName} />
          ))}
        </ul>
      ) : (
        <p className="text-sm text-muted-foreground">No runs yet.</p>
      )}
    </Section>
  );
}

/** Prompt versions: pass rate of each one's latest run, a diff between two, and making an older one current. */
export function PromptVersionsPanel({ agentId }: { agentId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const can = useCan();
  const versions = useQuery(trpc.agentTests.listPromptVersions.queryOptions({ agentId }));
  const versionName = usePromptVersionNames(agentId);
  const [pair, setPair] = useState({ from: "", to: "" });
  const diff = useQuery(trpc.agentTests.diffPromptVersions.queryOptions({ agentId, from: pair.from, to: pair.to }, { enabled: Boolean(pair.from && pair.to) }));
  const makeCurrent = useMutation(
    trpc.agentTests.makePromptVersionCurrent.mutationOptions({
      onSuccess: () => {
        void queryClient.invalidateQueries({ queryKey: trpc.agentTests.listPromptVersions.queryKey({ agentId }) });
        void queryClient.invalidateQueries({ queryKey: trpc.agents.getConfig.queryKey({ agentId }) });
      },
    }),
  );
  if (versions.isPending) return <Loading rows={2} />;
  if (versions.isError) return <ErrorState error={versions.error} retry={() => void versions.refetch()} />;
  const list = versions.data.versions;
  return (
    <Section title="Prompt versions" description="Every saved prompt is a version. The pass rate is that of the version's latest completed test run.">
      <ul className="flex flex-col gap-1 text-sm" data-testid="prompt-versions">
        {list.map((v) => (
          <li key={v.promptVersionId} className="flex flex-wrap items-center gap-2">
            <span className="font-semibold">Version {v.number}</span>
            <span>
              saved <LocalTime iso={v.createdAt} />
            </span>
            {v.current && <Badge tone="info">current</Badge>}
            <Badge tone={v.passRate === null ? "neutral" : v.passRate === 1 ? "success" : "warning"}>pass rate {percent(v.passRate)}</Badge>
            {can.admin && !v.current && (
              <Button size="sm" onClick={() => makeCurrent.mutate({ agentId, promptVersionId: v.promptVersionId })}>
                Make current
              </Button>
            )}
            <IdDetails ids={[{ label: "Version ID", value: v.promptVersionId }]} />
          </li>
        ))}
      </ul>
      {makeCurrent.isError && <Alert tone="error">{errorMessage(makeCurrent.error)}</Alert>}
      {list.length > 1 && (
        <div className="mt-3">
          <FieldRow>
            <Field label="Compare" id="diff-from">
              <NativeSelect value={pair.from} onChange={(e) => setPair({ ...pair, from: e.target.value })}>
                <option value="">Choose a version</option>
                {list.map((v) => (
                  <option key={v.promptVersionId} value={v.promptVersionId}>
                    {versionName(v.promptVersionId)}
                  </option>
                ))}
              </NativeSelect>
            </Field>
            <Field label="with" id="diff-to">
              <NativeSelect value={pair.to} onChange={(e) => setPair({ ...pair, to: e.target.value })}>
                <option value="">Choose a version</option>
                {list.map((v) => (
                  <option key={v.promptVersionId} value={v.promptVersionId}>
                    {versionName(v.promptVersionId)}
                  </option>
                ))}
              </NativeSelect>
            </Field>
          </FieldRow>
          {diff.data && (
            <pre tabIndex={0} aria-label="Prompt diff" className="mt-2 overflow-x-auto rounded bg-muted p-2 text-xs" data-testid="prompt-diff">
              {diff.data.lines.map((line, index) => (
                <div key={index} className={line.kind === "added" ? "text-success" : line.kind === "removed" ? "text-danger" : ""}>
                  {line.kind === "added" ? "+ " : line.kind === "removed" ? "- " : "  "}
                  {line.text}
                </div>
              ))}
            </pre>
          )}
        </div>
      )}
    </Section>
  );
}
