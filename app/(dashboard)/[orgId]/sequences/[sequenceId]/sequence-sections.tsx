"use client";

import Link from "next/link";
import { useMemo } from "react";
import { useOrgPath } from "../../../../_components/org-context";
import type { RouterOutputs } from "../../../../_components/router-types";
import { Badge, type BadgeTone } from "../../../../_components/ui/badge";
import { Section } from "../../../../_components/ui/card";
import { cn } from "../../../../_components/ui/cn";
import { columnsFor, DataTable } from "../../../../_components/ui/data-table";
import { DescriptionList } from "../../../../_components/ui/description-list";
import { formatTimeWindow, humanize } from "../../../../_components/ui/format";
import { Duration, ZonedTime } from "../../../../_components/ui/time";
import { LifecycleBadge, ResultBadge } from "../../../../_components/status-badges";
import { messageChannelOf, STEP_TYPE_LABELS } from "@/server/services/sequences/step-kinds";

type SequenceView = RouterOutputs["conversations"]["sequenceView"];
type Step = SequenceView["steps"][number];
type Call = SequenceView["calls"][number];
type Chain = NonNullable<SequenceView["chain"]>;

const STEP_STATE: Record<string, BadgeTone> = { done: "success", "in progress": "warning", scheduled: "info", cancelled: "neutral", "to come": "neutral", "not run": "neutral" };

function delayText(seconds: number, max: number | null): string {
  const unit = (s: number) =>
    s % 86_400 === 0 ? `${s / 86_400} day${s === 86_400 ? "" : "s"}` : s % 3600 === 0 ? `${s / 3600} h` : s % 60 === 0 ? `${s / 60} min` : `${s} s`;
  if (seconds === 0 && !max) return "Right away";
  return max && max > seconds ? `After ${unit(seconds)} to ${unit(max)}` : `After ${unit(seconds)}`;
}

export function ContactSection({ sequence }: { sequence: SequenceView["sequence"] }) {
  const path = useOrgPath();
  const zone = sequence.timezone;
  const variables = Object.entries(sequence.customInputVariables);
  return (
    <Section title="Contact">
      <DescriptionList
        items={[
          { label: "Phone", value: `${sequence.phoneNumber}${sequence.phoneNumberExt ? ` ext. ${sequence.phoneNumberExt}` : ""}` },
          { label: "Email", value: sequence.toEmailAddress || <span className="text-muted-foreground">—</span> },
          { label: "Time zone", value: zone },
          { label: "Agent", value: <Link href={path(`/agents/${encodeURIComponent(sequence.agentId)}`)}>{sequence.agentName}</Link> },
          {
            label: "Enrolled",
            value: (
              <>
                <ZonedTime iso={sequence.createdAt} contactZone={zone} /> <span className="text-muted-foreground">by {humanize(sequence.scheduledBy)}</span>
              </>
            ),
          },
          sequence.requestedScheduledAt && { label: "Requested start", value: <ZonedTime iso={sequence.requestedScheduledAt} contactZone={zone} /> },
          sequence.endedAt && { label: "Ended", value: <ZonedTime iso={sequence.endedAt} contactZone={zone} /> },
        ]}
      />
      {variables.length > 0 && (
        <>
          <h3 className="mt-4 mb-1">Input variables</h3>
          <DescriptionList items={variables.map(([key, value]) => ({ key, label: humanize(key), value }))} />
        </>
      )}
    </Section>
  );
}

export function StepsSection({ steps, lifecycleStatus, zone }: { steps: Step[]; lifecycleStatus: string; zone: string }) {
  const path = useOrgPath();
  const nextStep = steps.find((step) => step.state === "scheduled" || step.state === "in progress" || step.state === "to come");
  return (
    <Section title="Steps">
      <ol className="flex flex-col gap-2" data-testid="steps">
        {steps.map((step) => {
          const current = nextStep?.stepNumber === step.stepNumber && lifecycleStatus === "in progress";
          const window = step.executionWindowConfig;
          return (
            <li
              key={step.stepNumber}
              className={cn("flex items-start gap-3 rounded-lg border border-border bg-card px-3 py-2.5", current && "border-primary ring-1 ring-primary")}
              aria-current={current ? "step" : undefined}
            >
              <span
                className={cn(
                  "grid size-7 shrink-0 place-items-center rounded-full border border-border bg-muted font-bold",
                  step.state === "done" && "border-success bg-success-soft text-success",
                )}
                aria-hidden="true"
              >
                {step.stepNumber}
              </span>
              <div className="min-w-0 flex-1">
                <div className="flex flex-wrap items-center gap-2">
                  <strong>{STEP_TYPE_LABELS[step.stepType]}</strong>
                  <Badge tone={STEP_STATE[step.state] ?? "neutral"}>{humanize(step.state)}</Badge>
                  {step.resultType && step.state === "done" && step.stepType === "CALL" && <ResultBadge resultType={step.resultType} />}
                  {step.resultType && messageChannelOf(step.stepType) !== null && step.state !== "scheduled" && <Badge tone="neutral">{humanize(step.resultType)}</Badge>}
                </div>
                <div className="text-sm text-muted-foreground">
                  {delayText(step.delaySeconds, step.delaySecondsMax)}
                  {window.dayOffset > 0 ? `, ${window.dayOffset} day${window.dayOffset === 1 ? "" : "s"} later` : ""}, window{" "}
                  {formatTimeWindow(window.timeWindow.startTime, window.timeWindow.endTime)} ({window.timezoneSource === "contact" ? `contact's time, ${zone}` : "agent's time zone"})
                </div>
                {step.scheduledAt && (
                  <div className="text-sm text-muted-foreground">
                    {step.state === "scheduled" ? "Due " : ""}
                    <ZonedTime iso={step.scheduledAt} contactZone={zone} />
                  </div>
                )}
                {step.callId && (
                  <Link href={path(`/calls/${encodeURIComponent(step.callId)}`)} className="text-sm">
                    Open call
                  </Link>
                )}
              </div>
            </li>
          );
        })}
      </ol>
    </Section>
  );
}

const callCol = columnsFor<Call>();

export function CallsSection({ calls, zone, waiting }: { calls: Call[]; zone: string; waiting: boolean }) {
  const path = useOrgPath();
  const columns = useMemo(
    () => [
      callCol.accessor("stepNumber", {
        header: "Call",
        cell: ({ row }) => (
          <Link href={path(`/calls/${encodeURIComponent(row.original.callId)}`)}>
            {row.original.direction === "inbound" ? `Callback ${row.original.attempt}` : `Call ${row.original.stepNumber}`}
            {row.original.direction !== "inbound" && row.original.attempt > 1 ? ` (attempt ${row.original.attempt})` : ""}
          </Link>
        ),
      }),
      callCol.accessor("scheduledAt", { header: "Scheduled", meta: { hideBelow: "sm" }, cell: ({ getValue }) => <ZonedTime iso={getValue()} contactZone={zone} stacked /> }),
      callCol.accessor("resultType", {
        header: "Result",
        cell: ({ row }) => (
          <span className="flex flex-wrap gap-1">
            <ResultBadge resultType={row.original.resultType} />
            {row.original.hasMeeting && <Badge tone="success">Meeting</Badge>}
          </span>
        ),
      }),
      callCol.accessor("duration", { header: "Duration", meta: { numeric: true }, cell: ({ getValue }) => <Duration seconds={getValue()} /> }),
      callCol.accessor((call) => `${call.hasRecording ? "Recording" : "No audio"} · ${call.hasTranscript ? "transcript" : "no transcript"}`, {
        id: "media",
        header: "Audio / transcript",
        meta: { hideBelow: "md" },
      }),
    ],
    [path, zone],
  );
  return (
    <Section title="Calls">
      <DataTable
        columns={columns}
        data={calls}
        getRowId={(call) => call.callId}
        caption="Calls of this sequence"
        testId="sequence-calls"
        empty={{ title: waiting ? "No call yet: this contact waits for its turn in the chain." : "No call yet." }}
      />
    </Section>
  );
}

export function ChainSection({ chain, sequenceId }: { chain: Chain; sequenceId: string }) {
  const path = useOrgPath();
  return (
    <Section title="Chained contacts" data-testid="chain">
      <p className="mb-3">
        Contacts with the same <strong>{humanize(chain.groupByField ?? "group")}</strong> ({chain.groupValue}) are called one after another: the next one is
        scheduled when a call ends without completing the goal. <strong>{chain.waitingCount}</strong> waiting in this group
        {chain.chainStatus === "waiting" ? "; this contact is one of them." : "."}
      </p>
      <ol className="flex flex-col gap-1.5">
        {chain.members.map((member) => (
          <li
            key={member.sequenceId}
            aria-current={member.sequenceId === sequenceId ? "true" : undefined}
            className="flex flex-wrap items-center gap-x-3 gap-y-1 rounded-md border border-border px-3 py-2"
          >
            <span className="w-6 text-right tabular-nums text-muted-foreground">{member.position === null ? "—" : member.position + 1}</span>
            <span className="min-w-0 flex-1">
              {member.sequenceId === sequenceId ? (
                <strong>{member.name} (this contact)</strong>
              ) : (
                <Link href={path(`/sequences/${encodeURIComponent(member.sequenceId)}`)}>{member.name}</Link>
              )}
              <span className="block text-sm text-muted-foreground">{member.phoneNumber}</span>
            </span>
            <span className="text-sm">{member.chainStatus ? humanize(member.chainStatus) : "—"}</span>
            <LifecycleBadge status={member.lifecycleStatus} />
          </li>
        ))}
      </ol>
      {chain.truncated && <p className="mt-2 text-sm text-muted-foreground">Only the first {chain.members.length} members are listed.</p>}
    </Section>
  );
}
