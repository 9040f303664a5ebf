"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useCallback } from "react";
import { errorCode, useTRPC } from "@/server/trpc/client/react";
import { CopyButton } from "../../../../_components/copy-button";
import { useOrgPath } from "../../../../_components/org-context";
import { EmptyState, ErrorState, Loading, PageHeader } from "../../../../_components/states";
import styles from "../../conversations/_components/console-ops.module.css";
import { RecordingPlayer } from "../../conversations/_components/recording-player";
import { formatDuration, LifecycleBadge, ResultBadge } from "../../conversations/_components/status-badges";
import { Transcript } from "../../conversations/_components/transcript";
import { ZonedTime } from "../../conversations/_components/zoned-time";
import { MeetingPanel } from "./meeting-panel";

type Action = { description: string; status: string; actionKey: string; completedAt: string; metadata: Record<string, unknown> };

const NOT_CONNECTED = new Set(["Busy", "Invalid Phone Number", "Failed", "Cancelled"]);
const NOT_YET = new Set(["Scheduled", "Rescheduled", "Calling", "Processing Analysis"]);

function valueText(value: unknown): string {
  if (value === null || value === undefined) return "—";
  return typeof value === "string" ? value : JSON.stringify(value);
}

function ActionList({ actions, contactZone, empty }: { actions: Action[]; contactZone: string; empty: string }) {
  if (actions.length === 0) return <p className="hint">{empty}</p>;
  return (
    <ul className={styles.steps}>
      {actions.map((action, index) => (
        <li key={`${action.actionKey}-${index}`} className={styles.step}>
          <div style={{ flex: 1 }}>
            <div>
              <strong>{action.description || action.actionKey}</strong> <span className={action.status === "completed" ? "badge badge-ok" : "badge badge-muted"}>{action.status}</span>
            </div>
            <div className="hint">
              <code>{action.actionKey}</code>
              {action.completedAt && (
                <>
                  {" · "}
                  <ZonedTime iso={action.completedAt} contactZone={contactZone} />
                </>
              )}
            </div>
            {Object.keys(action.metadata ?? {}).length > 0 && (
              <details>
                <summary className="hint">Details</summary>
                <dl className={styles.dl}>
                  {Object.entries(action.metadata).map(([key, value]) => (
                    <div key={key} style={{ display: "contents" }}>
                      <dt>{key}</dt>
                      <dd>{valueText(value)}</dd>
                    </div>
                  ))}
                </dl>
              </details>
            )}
          </div>
        </li>
      ))}
    </ul>
  );
}

/**
 * One call: what the agent and the contact said and did. The audio plays through the signed link of
 * GET /recordings/{callId} (refetched when it expires); everything else is the call's metadata
 * (GET /conversations/metadata/{sequenceId}), the same objects integrators receive.
 */
export function CallView({ callId }: { callId: string }) {
  const trpc = useTRPC();
  const path = useOrgPath();
  const recording = useQuery(trpc.recordings.get.queryOptions({ callId, includeTranscript: true }));
  const sequenceId = recording.data?.recording.sequenceId;
  const metadata = useQuery({ ...trpc.conversations.metadata.queryOptions({ sequenceId: sequenceId ?? "" }), enabled: Boolean(sequenceId) });
  const refetchRecording = recording.refetch;
  const refreshLink = useCallback(async () => {
    const result = await refetchRecording();
    if (result.error) throw result.error;
    return result.data?.recording ?? null;
  }, [refetchRecording]);

  const back = (
    <p>
      <Link href={path("/conversations")}>← Conversations</Link>
      {sequenceId && (
        <>
          {" · "}
          <Link href={path(`/sequences/${encodeURIComponent(sequenceId)}`)}>Sequence</Link>
        </>
      )}
    </p>
  );
  if (recording.isPending || (sequenceId && metadata.isPending)) return <Loading rows={8} label="Loading the call…" />;
  if (recording.isError) {
    return (
      <>
        {back}
        {errorCode(recording.error) === "CALL_NOT_FOUND" ? (
          <EmptyState title="Call not found">
            <p>
              There is no call <code>{callId}</code> in this organization.
            </p>
          </EmptyState>
        ) : (
          <ErrorState error={recording.error} retry={() => void recording.refetch()} />
        )}
      </>
    );
  }
  if (metadata.isError) {
    return (
      <>
        {back}
        <ErrorState error={metadata.error} retry={() => void metadata.refetch()} />
      </>
    );
  }
  const entry = recording.data.recording;
  const call = metadata.data?.metadata.find((item) => item.callId === callId);
  if (!call) return <>{back}<ErrorState error={new Error("The call's metadata could not be found.")} retry={() => void metadata.refetch()} /></>;

  const result = call.callResult;
  const transcript = entry.transcript ?? "";
  const hasAudio = entry.recordingStatus === "downloaded" && Boolean(entry.url);
  const stepCount = metadata.data?.metadata.length ?? 0;
  const crm = call.crmSchedulingDetails;
  const hasMeeting = Boolean(crm.bookingUid);

  let noAudioText: string;
  if (NOT_YET.has(result.resultType)) noAudioText = "This call has not finished yet: no recording so far.";
  else if (NOT_CONNECTED.has(result.resultType) && !transcript) noAudioText = `No audio and no transcript: the call did not connect (${result.resultType}).`;
  else if (transcript) noAudioText = "There is no audio for this call (never recorded, removed by the retention policy, or held by a provider we cannot sign for). The transcript below is complete.";
  else noAudioText = "There is no audio and no transcript for this call.";

  return (
    <>
      {back}
      <PageHeader
        title={call.name}
        description={
          <>
            <ResultBadge resultType={result.resultType} /> · call {entry.stepNumber ?? "?"} of {stepCount} · <code data-testid="call-id">{call.callId}</code>{" "}
            <CopyButton value={call.callId} label="Copy ID" />
          </>
        }
      />

      <section className="panel" aria-labelledby="call-details">
        <h2 id="call-details" style={{ marginTop: 0 }}>
          Call
        </h2>
        <dl className={styles.dl}>
          <dt>Scheduled</dt>
          <dd>
            <ZonedTime iso={call.scheduledAt} contactZone={call.timezone} />
          </dd>
          <dt>Contact</dt>
          <dd>
            {call.phoneNumber}
            {call.phoneNumberExt ? ` ext. ${call.phoneNumberExt}` : ""} · {call.timezone}
          </dd>
          <dt>Agent</dt>
          <dd>
            <Link href={path(`/agents/${encodeURIComponent(call.agentId)}`)}>{call.agentName}</Link>
            {call.fromPhoneNumber && <span className="hint"> · from {call.fromPhoneNumber}</span>}
          </dd>
          <dt>Duration</dt>
          <dd>{formatDuration(call.duration)}</dd>
          <dt>Status</dt>
          <dd>
            <code>{call.callStatus}</code> · attempt {call.attempt}
          </dd>
          <dt>Sequence</dt>
          <dd>
            <Link href={path(`/sequences/${encodeURIComponent(call.sequence.sequenceId)}`)}>{call.sequence.sequenceId}</Link>{" "}
            <LifecycleBadge status={call.sequence.lifecycleStatus} />
          </dd>
          {call.promptVersionId && (
            <>
              <dt>Prompt version</dt>
              <dd>
                <code>{call.promptVersionId}</code>
              </dd>
            </>
          )}
        </dl>
      </section>

      <section className="panel" aria-labelledby="recording-heading">
        <h2 id="recording-heading" style={{ marginTop: 0 }}>
          Recording
        </h2>
        {hasAudio ? (
          <RecordingPlayer url={entry.url!} expiresAt={entry.expiresAt} durationSeconds={entry.durationSeconds} refresh={refreshLink} />
        ) : (
          <div className="alert alert-warn" role="status" data-testid="no-audio">
            <strong>No audio.</strong> {noAudioText}
          </div>
        )}
      </section>

      {(hasMeeting || result.followUpMeetingDetails) && (
        <MeetingPanel callId={call.callId} contactZone={call.timezone} followUp={result.followUpMeetingDetails ?? null} stored={crm} onReconciled={() => void metadata.refetch()} />
      )}

      <section className="panel" aria-labelledby="summary-heading">
        <h2 id="summary-heading" style={{ marginTop: 0 }}>
          Summary and outcomes
        </h2>
        <p data-testid="call-summary">{result.summary || <span className="hint">No summary for this call.</span>}</p>
        {result.outcomes.length > 0 ? (
          <ul className={styles.steps} aria-label="Outcomes">
            {result.outcomes.map((outcome) => (
              <li key={outcome.name} className={styles.step}>
                <div>
                  <strong>{outcome.name}</strong>
                  <div className="hint">{outcome.reasoning || "No reasoning given."}</div>
                </div>
              </li>
            ))}
          </ul>
        ) : (
          <p className="hint">No outcome was recorded.</p>
        )}
      </section>

      <section className="panel" aria-labelledby="transcript-heading">
        <h2 id="transcript-heading" style={{ marginTop: 0 }}>
          Transcript
        </h2>
        {transcript ? <Transcript text={transcript} contactName={call.name} /> : <p className="hint" data-testid="no-transcript">This call has no transcript.</p>}
      </section>

      <section className="panel" aria-labelledby="variables-heading">
        <h2 id="variables-heading" style={{ marginTop: 0 }}>
          Extracted variables
        </h2>
        {Object.keys(result.extractedVariables).length === 0 ? (
          <p className="hint">Nothing was extracted from this call.</p>
        ) : (
          <div className="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Variable</th>
                  <th scope="col">Value</th>
                </tr>
              </thead>
              <tbody>
                {Object.entries(result.extractedVariables).map(([key, value]) => (
                  <tr key={key}>
                    <td>
                      <code>{key}</code>
                    </td>
                    <td>{valueText(value)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        {Object.keys(call.customInputVariables).length > 0 && (
          <details style={{ marginTop: 12 }}>
            <summary>Input variables given at enrollment</summary>
            <dl className={styles.dl}>
              {Object.entries(call.customInputVariables).map(([key, value]) => (
                <div key={key} style={{ display: "contents" }}>
                  <dt>
                    <code>{key}</code>
                  </dt>
                  <dd>{value}</dd>
                </div>
              ))}
            </dl>
          </details>
        )}
      </section>

      <div className={styles.twoColumns}>
        <section className="panel" aria-labelledby="agent-actions-heading">
          <h2 id="agent-actions-heading" style={{ marginTop: 0 }}>
            Agent actions
          </h2>
          <ActionList actions={result.agentActions} contactZone={call.timezone} empty="The agent took no action." />
        </section>
        <section className="panel" aria-labelledby="human-actions-heading">
          <h2 id="human-actions-heading" style={{ marginTop: 0 }}>
            Requested by the contact
          </h2>
          <ActionList actions={result.humanActions} contactZone={call.timezone} empty="The contact asked for nothing." />
        </section>
      </div>
    </>
  );
}
