"use client";

import { Section } from "../../../../_components/ui/card";
import { DescriptionList } from "../../../../_components/ui/description-list";
import type { CallMetadata } from "./call-sections";

type Quality = NonNullable<CallMetadata["quality"]>;
type TimelineEvent = Quality["timeline"][number];

const ANSWERED_BY: Record<Quality["answeredBy"], string> = {
  human: "A person",
  machine: "Voicemail (machine)",
  fax: "Fax",
  ivr: "Phone menu (IVR)",
  screener: "Automated call screener",
  unknown: "Unknown",
};

const ms = (value: number | null | undefined) => (value === null || value === undefined ? "—" : `${Math.round(value).toLocaleString()} ms`);
const seconds = (valueMs: number) => `${(valueMs / 1000).toFixed(1)} s`;

const LANES: Array<{ kind: TimelineEvent["kind"]; label: string; className: string }> = [
  { kind: "agent-speech", label: "Agent", className: "bg-primary/70" },
  { kind: "callee-speech", label: "Contact", className: "bg-emerald-500/70" },
  { kind: "turn", label: "Waiting for the agent", className: "bg-amber-400/80" },
  { kind: "dead-air", label: "Dead air", className: "bg-muted-foreground/40" },
];

/**
 * The call's quality under its transcript (docs/call-quality.md): the figures, then a timeline of who spoke when, each
 * turn's wait for the agent, interruptions, dead air and the answering-machine verdict, on the stream's clock, and the
 * turns as a table (the same numbers, for screen readers and copying).
 */
export function CallTimelineSection({ quality }: { quality: CallMetadata["quality"] }) {
  if (!quality) return null;
  const span = Math.max(1000, quality.durationMs, ...quality.timeline.map((event) => event.atMs + (event.durationMs ?? 0)));
  const left = (atMs: number) => `${Math.min(100, (atMs / span) * 100)}%`;
  const width = (durationMs: number | undefined) => `${Math.max(0.4, ((durationMs ?? 0) / span) * 100)}%`;
  const markers = quality.timeline.filter((event) => event.kind === "interruption" || event.kind === "amd" || event.kind === "classified");
  return (
    <Section title="Call quality">
      <div className="flex flex-col gap-4" data-testid="call-timeline">
        <DescriptionList
          items={[
            { label: "Answered by", value: <span data-testid="quality-answered-by">{ANSWERED_BY[quality.answeredBy]}{quality.amd ? ` (AMD: ${quality.amd.result}${quality.amd.decisionMs !== null ? ` after ${seconds(quality.amd.decisionMs)}` : ""})` : ""}</span> },
            { label: "Greeting delay", value: <span data-testid="quality-greeting-ms">{ms(quality.greetingMs)}</span> },
            { label: "Response latency p50 / p95 / max", value: <span data-testid="quality-response-ms">{quality.responseMs ? `${ms(quality.responseMs.p50)} / ${ms(quality.responseMs.p95)} / ${ms(quality.responseMs.max)}` : "—"}</span> },
            { label: "Of which model / bridge (p50)", value: quality.modelMs && quality.bridgeMs ? `${ms(quality.modelMs.p50)} / ${quality.bridgeMs.p50.toLocaleString()} ms` : "—" },
            { label: "Interruptions", value: <span data-testid="quality-interruptions">{quality.interruptions}</span> },
            { label: "Dead air", value: `${quality.deadAirSeconds.toLocaleString()} s` },
          ]}
        />
        <figure className="flex flex-col gap-1" aria-label="Call timeline">
          {LANES.map((lane) => (
            <div key={lane.kind} className="flex items-center gap-2">
              <span className="w-44 shrink-0 text-sm text-muted-foreground">{lane.label}</span>
              <div className="relative h-4 flex-1 rounded bg-muted" data-testid={`timeline-lane-${lane.kind}`}>
                {quality.timeline
                  .filter((event) => event.kind === lane.kind)
                  .map((event, index) => (
                    <span
                      key={index}
                      className={`absolute top-0 h-4 rounded-sm ${lane.className}`}
                      style={{ left: left(event.atMs), width: width(event.durationMs) }}
                      title={`${seconds(event.atMs)}${event.durationMs !== undefined ? `, ${ms(event.durationMs)}` : ""}${event.label ? ` — ${event.label}` : ""}`}
                    />
                  ))}
              </div>
            </div>
          ))}
          <div className="flex items-center gap-2">
            <span className="w-44 shrink-0 text-sm text-muted-foreground">Events</span>
            <div className="relative h-5 flex-1" data-testid="timeline-markers">
              {markers.map((event, index) => (
                <span
                  key={index}
                  className={`absolute top-0 h-5 w-1 ${event.kind === "interruption" ? "bg-red-600" : "bg-foreground"}`}
                  style={{ left: left(event.atMs) }}
                  title={`${seconds(event.atMs)}: ${event.kind === "interruption" ? "the contact spoke over the agent" : event.kind === "amd" ? `answering-machine detection: ${event.label}` : `the agent classified the answerer: ${event.label}`}`}
                  data-kind={event.kind}
                />
              ))}
            </div>
          </div>
          <figcaption className="flex justify-between pl-46 text-xs text-muted-foreground">
            <span>0 s (stream start)</span>
            <span>{seconds(span)}</span>
          </figcaption>
        </figure>
        {quality.turnLatencies.length > 0 && (
          <table className="w-full text-sm" data-testid="quality-turns">
            <caption className="text-left text-muted-foreground">Each turn: end of the contact&apos;s speech to the agent&apos;s first audio</caption>
            <thead>
              <tr className="text-left">
                <th>#</th>
                <th>At</th>
                <th className="text-right">Response</th>
                <th className="text-right">Model</th>
                <th className="text-right">Bridge</th>
                <th className="text-right">Held</th>
              </tr>
            </thead>
            <tbody className="tabular-nums">
              {quality.turnLatencies.map((turn, index) => (
                <tr key={index}>
                  <td>{index + 1}</td>
                  <td>{seconds(turn.atMs)}</td>
                  <td className="text-right">{ms(turn.responseMs)}</td>
                  <td className="text-right">{ms(turn.modelMs)}</td>
                  <td className="text-right">{turn.bridgeMs.toLocaleString()} ms</td>
                  <td className="text-right">{ms(turn.heldMs)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
    </Section>
  );
}
