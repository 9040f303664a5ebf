"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRef, useState, type FormEvent } from "react";
import type { TConsoleAgent } from "@/server/schemas/agent-config";
import { errorMessage, useTRPC } from "@/server/trpc/client/react";
import { Alert } from "../../../../../_components/ui/alert";
import { Badge } from "../../../../../_components/ui/badge";
import { Button } from "../../../../../_components/ui/button";
import { Section } from "../../../../../_components/ui/card";
import { Field, FieldRow } from "../../../../../_components/ui/field";
import { Input } from "../../../../../_components/ui/input";
import { IdDetails } from "../../../../../_components/ui/id-details";
import { EmptyState, ErrorState, Loading } from "../../../../../_components/ui/states";
import { Duration, LocalTime } from "../../../../../_components/ui/time";
import { startBrowserTestCall, type BrowserTestCall, type TestCallEvent } from "./browser-call";
import { usePromptVersionNames } from "./prompt-version-names";

type Line = { speaker: "agent" | "customer"; text: string; offsetMs: number };
type ToolCall = Extract<TestCallEvent, { event: "test.tool" }>["toolCall"];

function ToolCallItem({ call }: { call: ToolCall }) {
  return (
    <li className="rounded border border-border p-2 text-sm" data-testid="test-call-tool">
      <span className="font-mono font-bold">{call.name}</span>({JSON.stringify(call.arguments)}) →{" "}
      <Badge tone={call.result.ok ? "success" : "warning"}>{call.result.ok ? "ok" : "not ok"}</Badge> {call.result.message}
    </li>
  );
}

function Transcript({ lines }: { lines: Line[] }) {
  return (
    <ol className="flex flex-col gap-1 text-sm" aria-label="Transcript">
      {lines.map((line, index) => (
        <li key={index} data-testid={`test-call-line-${line.speaker}`} className={line.speaker === "agent" ? "text-primary" : ""}>
          <span className="font-bold">{line.speaker === "agent" ? "Agent" : "You"}:</span> {line.text}
        </li>
      ))}
    </ol>
  );
}

/**
 * "Test call": talk to the agent through the microphone. The server runs the phone call's Realtime session with the
 * agent's current prompt version, voice and tools (in test mode) and the contact and input variables filled in here.
 */
export function TestCallPanel({ agent }: { agent: TConsoleAgent }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const audio = useRef<HTMLAudioElement>(null);
  const call = useRef<BrowserTestCall | null>(null);
  const [contact, setContact] = useState({ name: "Test Caller", email: "" });
  const [variables, setVariables] = useState<Record<string, string>>(() => Object.fromEntries(agent.inputVariables.map((variable) => [variable.slug, ""])));
  const [state, setState] = useState<"idle" | "connecting" | "live" | "ended">("idle");
  const [lines, setLines] = useState<Line[]>([]);
  const [tools, setTools] = useState<ToolCall[]>([]);
  const [latencies, setLatencies] = useState<number[]>([]);
  const [typed, setTyped] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  const [peak, setPeak] = useState(0);
  const start = useMutation(trpc.agentTests.startTestCall.mutationOptions());

  async function begin(event: FormEvent) {
    event.preventDefault();
    setProblem(null);
    setLines([]);
    setTools([]);
    setLatencies([]);
    setState("connecting");
    try {
      const inputVariables = Object.fromEntries(Object.entries(variables).filter(([, value]) => value.trim() !== ""));
      const ticket = await start.mutateAsync({ agentId: agent.agentId, contact: { name: contact.name || undefined, email: contact.email || null }, inputVariables });
      const url = `${window.location.protocol === "https:" ? "wss" : "ws"}://${window.location.host}${ticket.path}?ticket=${encodeURIComponent(ticket.ticket)}`;
      call.current = await startBrowserTestCall({
        url,
        audio: audio.current!,
        onEvent: (received) => {
          if (received.event === "test.transcript") setLines((current) => [...current, { speaker: received.speaker, text: received.text, offsetMs: received.offsetMs }]);
          else if (received.event === "test.tool") setTools((current) => [...current, received.toolCall]);
          else if (received.event === "test.latency") setLatencies((current) => [...current, received.latencyMs]);
          setPeak(call.current?.peakLevel() ?? 0);
        },
        onClosed: () => {
          setPeak(call.current?.peakLevel() ?? 0);
          setState("ended");
          // The server finishes the call (recording, analysis) after the socket closes.
          window.setTimeout(() => void queryClient.invalidateQueries({ queryKey: trpc.agentTests.listTestCalls.queryKey({ agentId: agent.agentId }) }), 1000);
        },
        onError: setProblem,
      });
      setState("live");
    } catch (error) {
      setProblem(error instanceof DOMException ? `The microphone is not available: ${error.message}` : errorMessage(error));
      setState("idle");
    }
  }

  return (
    <Section
      title="Test call"
      description="Talk to the agent in your browser: the same conversation a phone call runs, with this agent's current prompt, voice and tools. book_meeting asks the calendar for a real slot but books nothing; opt_out and end_call are recorded on the test only. Test calls are never charged, counted or sent to webhooks."
    >
      <form onSubmit={(event) => void begin(event)} className="flex flex-col gap-3" aria-label="Test call">
        <fieldset disabled={state === "connecting" || state === "live"} className="flex min-w-0 flex-col gap-3 border-0 p-0">
          <legend className="sr-only">Who the agent calls</legend>
          <FieldRow>
            <Field label="Contact name" id="test-call-name">
              <Input value={contact.name} onChange={(e) => setContact({ ...contact, name: e.target.value })} />
            </Field>
            <Field label="Contact email" id="test-call-email" hint="Needed for book_meeting.">
              <Input type="email" value={contact.email} onChange={(e) => setContact({ ...contact, email: e.target.value })} />
            </Field>
          </FieldRow>
          {agent.inputVariables.length > 0 && (
            <FieldRow>
              {agent.inputVariables.map((variable) => (
                <Field key={variable.slug} label={variable.displayName} id={`test-call-var-${variable.slug}`}>
                  <Input value={variables[variable.slug] ?? ""} onChange={(e) => setVariables({ ...variables, [variable.slug]: e.target.value })} />
                </Field>
              ))}
            </FieldRow>
          )}
        </fieldset>
        <div className="flex flex-wrap items-center gap-2">
          {state !== "live" ? (
            <Button variant="primary" type="submit" disabled={state === "connecting"}>
              {state === "connecting" ? "Connecting…" : "Start test call"}
            </Button>
          ) : (
            <Button variant="danger" type="button" onClick={() => call.current?.hangUp()}>
              End call
            </Button>
          )}
          <Badge tone={state === "live" ? "success" : "neutral"} data-testid="test-call-state">
            {state}
          </Badge>
          <span className="text-sm text-muted-foreground" data-testid="test-call-peak" data-peak={peak.toFixed(3)}>
            Agent audio level {Math.round(peak * 100)} %
          </span>
        </div>
      </form>
      <audio ref={audio} autoPlay data-testid="test-call-audio" className="sr-only" aria-label="Agent's voice" />
      {problem && <Alert tone="error">{problem}</Alert>}
      {(state === "live" || state === "ended") && (
        <div className="mt-4 grid gap-4 md:grid-cols-2">
          <div>
            <h3 className="mb-2 font-bold">Transcript</h3>
            <Transcript lines={lines} />
            {state === "live" && (
              <form
                className="mt-2 flex gap-2"
                aria-label="Type instead of speaking"
                onSubmit={(event) => {
                  event.preventDefault();
                  if (typed.trim()) call.current?.say(typed);
                  setTyped("");
                }}
              >
                <Field label="Say (typed)" hideLabel className="grow">
                  <Input placeholder="Type instead of speaking…" value={typed} onChange={(e) => setTyped(e.target.value)} />
                </Field>
                <Button type="submit">Say</Button>
              </form>
            )}
          </div>
          <div>
            <h3 className="mb-2 font-bold">Tool calls</h3>
            {tools.length === 0 ? <p className="text-sm text-muted-foreground">None yet.</p> : <ul className="flex flex-col gap-1">{tools.map((tool, index) => <ToolCallItem key={index} call={tool} />)}</ul>}
            <h3 className="mt-3 mb-2 font-bold">Agent turn latency</h3>
            <p className="text-sm" data-testid="test-call-latencies">
              {latencies.length === 0 ? "—" : latencies.map((ms) => `${ms} ms`).join(", ")}
            </p>
            <p className="text-xs text-muted-foreground">From the end of your speech to the agent&apos;s first audio, measured at the server.</p>
          </div>
        </div>
      )}
    </Section>
  );
}

/** The agent's past test calls: transcript, tool calls, recording, and the result as the webhook would carry it. */
export function TestCallsList({ agentId }: { agentId: string }) {
  const trpc = useTRPC();
  const versionName = usePromptVersionNames(agentId);
  const list = useQuery(trpc.agentTests.listTestCalls.queryOptions({ agentId }, { refetchInterval: (query) => (query.state.data?.testCalls.some((call) => call.status === "live" || call.status === "analyzing") ? 1000 : false) }));
  return (
    <Section title="Test calls" description="Kept with their transcript, recording and analysis.">
      {list.isPending ? (
        <Loading rows={2} />
      ) : list.isError ? (
        <ErrorState error={list.error} retry={() => void list.refetch()} />
      ) : list.data.testCalls.length === 0 ? (
        <EmptyState title="No test calls yet" />
      ) : (
        <ul className="flex flex-col gap-3" data-testid="test-calls">
          {list.data.testCalls.map((call) => (
            <li key={call.testCallId} className="rounded border border-border p-3 text-sm" data-testid="test-call-item">
              <div className="flex flex-wrap items-center gap-2">
                <span className="font-semibold">{call.contact.name}</span>
                <LocalTime iso={call.createdAt} />
                <Badge tone={call.status === "completed" ? "success" : call.status === "failed" ? "danger" : "neutral"}>{call.status}</Badge>
                {call.callResult && <Badge tone="info">{String(call.callResult.resultType)}</Badge>}
                <Duration seconds={call.durationSeconds} />
                <span className="text-muted-foreground">{versionName(call.promptVersionId)}</span>
              </div>
              <details className="mt-2">
                <summary>Details</summary>
                <Transcript lines={call.lines} />
                <ul className="mt-2 flex flex-col gap-1">
                  {call.toolCalls.map((tool, index) => (
                    <ToolCallItem key={index} call={tool} />
                  ))}
                </ul>
                {call.latenciesMs.length > 0 && <p>Latency per agent turn: {call.latenciesMs.map((ms) => `${ms} ms`).join(", ")}</p>}
                {call.recordingUrl && <audio controls src={call.recordingUrl} className="mt-2 w-full" aria-label="Recording" />}
                {call.callResult && <pre tabIndex={0} aria-label="Result as the webhook would carry it" className="mt-2 overflow-x-auto rounded bg-muted p-2 text-xs">{JSON.stringify(call.callResult, null, 2)}</pre>}
                <IdDetails
                  ids={[
                    { label: "Test call ID", value: call.testCallId },
                    { label: "Prompt version ID", value: call.promptVersionId },
                  ]}
                />
              </details>
            </li>
          ))}
        </ul>
      )}
    </Section>
  );
}
