"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { errorCode, useTRPC } from "@/server/trpc/client/react";
import { CopyButton } from "../../../../_components/copy-button";
import { useCan, useOrgPath } from "../../../../_components/org-context";
import { EmptyState, ErrorState, Loading, PageHeader } from "../../../../_components/states";
import styles from "../../conversations/_components/console-ops.module.css";
import { formatDuration, LifecycleBadge, ResultBadge } from "../../conversations/_components/status-badges";
import { ZonedTime } from "../../conversations/_components/zoned-time";
import { CancelByReference } from "./cancel-by-reference";

const STATE_CLASS: Record<string, string> = {
  done: "badge badge-ok",
  "in progress": "badge badge-warn",
  scheduled: "badge badge-warn",
  cancelled: "badge badge-muted",
  "to come": "badge badge-muted",
  "not run": "badge badge-muted",
};

function minutesText(minutes: number): string {
  return `${String(Math.floor(minutes / 60)).padStart(2, "0")}:${String(minutes % 60).padStart(2, "0")}`;
}

function delayText(seconds: number, max: number | null): string {
  const unit = (s: number) => (s % 86_400 === 0 ? `${s / 86_400} d` : s % 3600 === 0 ? `${s / 3600} h` : s % 60 === 0 ? `${s / 60} min` : `${s} s`);
  if (seconds === 0 && !max) return "right away";
  return max && max > seconds ? `after ${unit(seconds)}–${unit(max)}` : `after ${unit(seconds)}`;
}

export function SequenceView({ sequenceId }: { sequenceId: string }) {
  const trpc = useTRPC();
  const path = useOrgPath();
  const can = useCan();
  const view = useQuery(trpc.conversations.sequenceView.queryOptions({ sequenceId }));
  const back = (
    <p>
      <Link href={path("/conversations")}>← Conversations</Link>
    </p>
  );
  if (view.isPending) return <Loading rows={8} label="Loading the sequence…" />;
  if (view.isError) {
    return (
      <>
        {back}
        {errorCode(view.error) === "SEQUENCE_NOT_FOUND" ? (
          <EmptyState title="Sequence not found">
            <p>
              There is no sequence <code>{sequenceId}</code> in this organization.
            </p>
          </EmptyState>
        ) : (
          <ErrorState error={view.error} retry={() => void view.refetch()} />
        )}
      </>
    );
  }
  const { sequence, steps, calls, chain } = view.data;
  const zone = sequence.timezone;
  const nextStep = steps.find((step) => step.state === "scheduled" || step.state === "in progress" || step.state === "to come");
  const done = steps.filter((step) => step.state === "done").length;

  return (
    <>
      {back}
      <PageHeader
        title={sequence.name}
        description={
          <>
            <LifecycleBadge status={sequence.lifecycleStatus} /> · {done} of {steps.length} steps done · <code>{sequence.sequenceId}</code>{" "}
            <CopyButton value={sequence.sequenceId} label="Copy ID" />
          </>
        }
      />
      <div className={styles.twoColumns}>
        <section className="panel" aria-labelledby="contact-heading">
          <h2 id="contact-heading" style={{ marginTop: 0 }}>
            Contact
          </h2>
          <dl className={styles.dl}>
            <dt>Phone</dt>
            <dd>
              {sequence.phoneNumber}
              {sequence.phoneNumberExt ? ` ext. ${sequence.phoneNumberExt}` : ""}
            </dd>
            <dt>Email</dt>
            <dd>{sequence.toEmailAddress || <span className="hint">—</span>}</dd>
            <dt>Time zone</dt>
            <dd>{zone}</dd>
            <dt>Agent</dt>
            <dd>
              <Link href={path(`/agents/${encodeURIComponent(sequence.agentId)}`)}>{sequence.agentName}</Link>
            </dd>
            <dt>Enrolled</dt>
            <dd>
              <ZonedTime iso={sequence.createdAt} contactZone={zone} /> <span className="hint">by {sequence.scheduledBy}</span>
            </dd>
            {sequence.requestedScheduledAt && (
              <>
                <dt>Requested start</dt>
                <dd>
                  <ZonedTime iso={sequence.requestedScheduledAt} contactZone={zone} />
                </dd>
              </>
            )}
            {sequence.endedAt && (
              <>
                <dt>Ended</dt>
                <dd>
                  <ZonedTime iso={sequence.endedAt} contactZone={zone} />
                </dd>
              </>
            )}
          </dl>
          {Object.keys(sequence.customInputVariables).length > 0 && (
            <>
              <h3>Input variables</h3>
              <dl className={styles.dl}>
                {Object.entries(sequence.customInputVariables).map(([key, value]) => (
                  <div key={key} style={{ display: "contents" }}>
                    <dt>
                      <code>{key}</code>
                    </dt>
                    <dd>{value}</dd>
                  </div>
                ))}
              </dl>
            </>
          )}
        </section>

        <section className="panel" aria-labelledby="steps-heading">
          <h2 id="steps-heading" style={{ marginTop: 0 }}>
            Steps
          </h2>
          <ol className={styles.steps} data-testid="steps">
            {steps.map((step) => (
              <li
                key={step.stepNumber}
                className={`${styles.step} ${step.state === "done" ? styles.stepDone : ""} ${nextStep?.stepNumber === step.stepNumber && sequence.lifecycleStatus === "in progress" ? styles.stepCurrent : ""}`}
                aria-current={nextStep?.stepNumber === step.stepNumber && sequence.lifecycleStatus === "in progress" ? "step" : undefined}
              >
                <span className={styles.stepNumber} aria-hidden="true">
                  {step.stepNumber}
                </span>
                <div style={{ flex: 1 }}>
                  <div>
                    <strong>{step.stepType}</strong> <span className={STATE_CLASS[step.state]}>{step.state}</span>{" "}
                    {step.resultType && step.state === "done" && <ResultBadge resultType={step.resultType} />}
                  </div>
                  <div className="hint">
                    {delayText(step.delaySeconds, step.delaySecondsMax)}
                    {step.executionWindowConfig.dayOffset > 0 ? `, day +${step.executionWindowConfig.dayOffset}` : ""}, window{" "}
                    {minutesText(step.executionWindowConfig.timeWindow.startTime)}–{minutesText(step.executionWindowConfig.timeWindow.endTime)} (
                    {step.executionWindowConfig.timezoneSource === "contact" ? `contact's time, ${zone}` : "agent's time zone"})
                  </div>
                  {step.scheduledAt && (
                    <div className="hint">
                      {step.state === "scheduled" ? "Due " : ""}
                      <ZonedTime iso={step.scheduledAt} contactZone={zone} />
                    </div>
                  )}
                  {step.callId && (
                    <Link href={path(`/calls/${encodeURIComponent(step.callId)}`)} className="hint">
                      Open call
                    </Link>
                  )}
                </div>
              </li>
            ))}
          </ol>
        </section>
      </div>

      <section className="panel" aria-labelledby="calls-heading">
        <h2 id="calls-heading" style={{ marginTop: 0 }}>
          Calls
        </h2>
        {calls.length === 0 ? (
          <p className="hint">{chain?.chainStatus === "waiting" ? "No call yet: this contact waits for its turn in the chain." : "No call yet."}</p>
        ) : (
          <div className="table-wrap">
            <table data-testid="sequence-calls">
              <thead>
                <tr>
                  <th scope="col">Step</th>
                  <th scope="col">Scheduled</th>
                  <th scope="col">Result</th>
                  <th scope="col" className="num">
                    Duration
                  </th>
                  <th scope="col">Audio / transcript</th>
                </tr>
              </thead>
              <tbody>
                {calls.map((call) => (
                  <tr key={call.callId}>
                    <td>
                      <Link href={path(`/calls/${encodeURIComponent(call.callId)}`)}>
                        Call {call.stepNumber}
                        {call.attempt > 1 ? ` (attempt ${call.attempt})` : ""}
                      </Link>
                    </td>
                    <td>
                      <ZonedTime iso={call.scheduledAt} contactZone={zone} compact />
                    </td>
                    <td>
                      <ResultBadge resultType={call.resultType} />
                      {call.hasMeeting && <span className="badge badge-ok" style={{ marginLeft: 4 }}>meeting</span>}
                    </td>
                    <td className="num">{formatDuration(call.duration)}</td>
                    <td>
                      {call.hasRecording ? "recording" : "no audio"} · {call.hasTranscript ? "transcript" : "no transcript"}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>

      {chain && (
        <section className="panel" aria-labelledby="chain-heading" data-testid="chain">
          <h2 id="chain-heading" style={{ marginTop: 0 }}>
            Chained contacts
          </h2>
          <p>
            Contacts with <code>{chain.groupByField ?? "group"}</code> = <code>{chain.groupValue}</code> are called one after another: the next one is scheduled when a call
            ends without Goal Completed. <strong>{chain.waitingCount}</strong> waiting in this group
            {chain.chainStatus === "waiting" ? "; this contact is one of them." : "."}
          </p>
          <div className="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col" className="num">
                    #
                  </th>
                  <th scope="col">Contact</th>
                  <th scope="col">Chain</th>
                  <th scope="col">Sequence</th>
                </tr>
              </thead>
              <tbody>
                {chain.members.map((member) => (
                  <tr key={member.sequenceId} aria-current={member.sequenceId === sequence.sequenceId ? "true" : undefined}>
                    <td className="num">{member.position === null ? "—" : member.position + 1}</td>
                    <td>
                      {member.sequenceId === sequence.sequenceId ? (
                        <strong>{member.name} (this contact)</strong>
                      ) : (
                        <Link href={path(`/sequences/${encodeURIComponent(member.sequenceId)}`)}>{member.name}</Link>
                      )}
                      <div className="hint">{member.phoneNumber}</div>
                    </td>
                    <td>{member.chainStatus ?? "—"}</td>
                    <td>
                      <LifecycleBadge status={member.lifecycleStatus} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {chain.truncated && <p className="hint">Only the first {chain.members.length} members are listed.</p>}
        </section>
      )}

      {sequence.lifecycleStatus === "in progress" && can.admin && (
        <section className="panel" aria-labelledby="cancel-heading">
          <h2 id="cancel-heading" style={{ marginTop: 0 }}>
            Cancel
          </h2>
          <CancelByReference variables={sequence.customInputVariables} />
        </section>
      )}
    </>
  );
}
