"use client";

import Link from "next/link";
import { useOrgPath } from "../../../../_components/org-context";
import type { RouterOutputs } from "../../../../_components/router-types";
import { Badge } from "../../../../_components/ui/badge";
import { Section } from "../../../../_components/ui/card";
import { DescriptionList } from "../../../../_components/ui/description-list";
import { humanize } from "../../../../_components/ui/format";
import { IdDetails } from "../../../../_components/ui/id-details";
import { Duration, ZonedTime } from "../../../../_components/ui/time";
import { LifecycleBadge } from "../../../../_components/status-badges";
import { Transcript } from "../../conversations/_components/transcript";

export type CallMetadata = RouterOutputs["conversations"]["metadata"]["metadata"][number];
type Action = CallMetadata["callResult"]["agentActions"][number];

export function valueText(value: unknown): string {
  if (value === null || value === undefined) return "—";
  if (typeof value === "boolean") return value ? "Yes" : "No";
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** When, who, from which number, how long: the facts of the call, with its raw IDs out of the way. */
export function CallDetails({ call }: { call: CallMetadata }) {
  const path = useOrgPath();
  return (
    <Section title="Call">
      <DescriptionList
        items={[
          { label: "Scheduled", value: <ZonedTime iso={call.scheduledAt} contactZone={call.timezone} /> },
          {
            label: "Contact",
            value: (
              <>
                {call.phoneNumber}
                {call.phoneNumberExt ? ` ext. ${call.phoneNumberExt}` : ""} · {call.timezone}
              </>
            ),
          },
          {
            label: "Agent",
            value: (
              <>
                <Link href={path(`/agents/${encodeURIComponent(call.agentId)}`)}>{call.agentName}</Link>
                {call.fromPhoneNumber && <span className="text-muted-foreground"> · called from {call.fromPhoneNumber}</span>}
              </>
            ),
          },
          { label: "Duration", value: <Duration seconds={call.duration} /> },
          { label: "Status", value: `${humanize(call.callStatus)} · attempt ${call.attempt}` },
          {
            label: "Sequence",
            value: (
              <span className="flex flex-wrap items-center gap-2">
                <Link href={path(`/sequences/${encodeURIComponent(call.sequence.sequenceId)}`)}>Open the sequence</Link>
                <LifecycleBadge status={call.sequence.lifecycleStatus} />
              </span>
            ),
          },
        ]}
      />
      <IdDetails
        label="Technical details"
        ids={[
          { label: "Call ID", value: call.callId, testId: "call-id" },
          { label: "Sequence ID", value: call.sequence.sequenceId },
          ...(call.promptVersionId ? [{ label: "Prompt version", value: call.promptVersionId }] : []),
        ]}
      />
    </Section>
  );
}

export function SummarySection({ result }: { result: CallMetadata["callResult"] }) {
  return (
    <Section title="Summary and outcomes">
      <p data-testid="call-summary">{result.summary || <span className="text-muted-foreground">No summary for this call.</span>}</p>
      {result.outcomes.length > 0 ? (
        <ul className="mt-3 flex flex-col gap-2" aria-label="Outcomes">
          {result.outcomes.map((outcome) => (
            <li key={outcome.name} className="rounded-md border border-border px-3 py-2">
              <strong>{outcome.name}</strong>
              <div className="text-sm text-muted-foreground">{outcome.reasoning || "No reasoning given."}</div>
            </li>
          ))}
        </ul>
      ) : (
        <p className="mt-2 text-muted-foreground">No outcome was recorded.</p>
      )}
    </Section>
  );
}

export function TranscriptSection({ transcript, contactName }: { transcript: string; contactName: string }) {
  return (
    <Section title="Transcript">
      {transcript ? (
        <Transcript text={transcript} contactName={contactName} />
      ) : (
        <p className="text-muted-foreground" data-testid="no-transcript">
          This call has no transcript.
        </p>
      )}
    </Section>
  );
}

export function VariablesSection({ call }: { call: CallMetadata }) {
  const extracted = Object.entries(call.callResult.extractedVariables);
  const inputs = Object.entries(call.customInputVariables);
  return (
    <Section title="Extracted variables">
      {extracted.length === 0 ? (
        <p className="text-muted-foreground">Nothing was extracted from this call.</p>
      ) : (
        <DescriptionList items={extracted.map(([key, value]) => ({ key, label: humanize(key), value: valueText(value) }))} />
      )}
      {inputs.length > 0 && (
        <details className="mt-3">
          <summary className="cursor-pointer">Input variables given at enrollment</summary>
          <DescriptionList className="mt-2" items={inputs.map(([key, value]) => ({ key, label: humanize(key), value }))} />
        </details>
      )}
    </Section>
  );
}

function ActionList({ actions, contactZone, empty }: { actions: Action[]; contactZone: string; empty: string }) {
  if (actions.length === 0) return <p className="text-muted-foreground">{empty}</p>;
  return (
    <ul className="flex flex-col gap-2">
      {actions.map((action, index) => (
        <li key={`${action.actionKey}-${index}`} className="rounded-md border border-border px-3 py-2">
          <div className="flex flex-wrap items-center gap-2">
            <strong>{action.description || humanize(action.actionKey)}</strong>
            <Badge tone={action.status === "completed" ? "success" : "neutral"}>{humanize(action.status)}</Badge>
          </div>
          {action.completedAt && (
            <div className="text-sm text-muted-foreground">
              <ZonedTime iso={action.completedAt} contactZone={contactZone} />
            </div>
          )}
          {Object.keys(action.metadata ?? {}).length > 0 && (
            <details>
              <summary className="cursor-pointer text-sm text-muted-foreground">Details</summary>
              <DescriptionList className="mt-1" items={Object.entries(action.metadata).map(([key, value]) => ({ key, label: humanize(key), value: valueText(value) }))} />
            </details>
          )}
        </li>
      ))}
    </ul>
  );
}

export function ActionsSections({ call }: { call: CallMetadata }) {
  return (
    <div className="grid grid-cols-1 gap-4 lg:grid-cols-2">
      <Section title="Agent actions">
        <ActionList actions={call.callResult.agentActions} contactZone={call.timezone} empty="The agent took no action." />
      </Section>
      <Section title="Requested by the contact">
        <ActionList actions={call.callResult.humanActions} contactZone={call.timezone} empty="The contact asked for nothing." />
      </Section>
    </div>
  );
}
