"use client";

import { useQuery } from "@tanstack/react-query";
import { useCallback } from "react";
import { errorCode, useTRPC } from "@/server/trpc/client/react";
import { useCan, useOrgPath } from "../../../../_components/org-context";
import { ListenButton } from "../../live-calls/listen-button";
import { Alert } from "../../../../_components/ui/alert";
import { Section } from "../../../../_components/ui/card";
import { PageHeader } from "../../../../_components/ui/page-header";
import { EmptyState, ErrorState, Loading } from "../../../../_components/ui/states";
import { RecordingPlayer } from "../../conversations/_components/recording-player";
import { ResultBadge } from "../../../../_components/status-badges";
import { ActionsSections, CallDetails, SummarySection, TranscriptSection, VariablesSection } from "./call-sections";
import { CallTimelineSection } from "./call-timeline";
import { MeetingPanel } from "./meeting-panel";
import { DisclosuresSection } from "./disclosures-section";

const NOT_CONNECTED = new Set(["Busy", "Invalid Phone Number", "Failed", "Cancelled"]);
const NOT_YET = new Set(["Scheduled", "Rescheduled", "Calling", "Processing Analysis"]);

/**
 * One call: what the agent and the contact said and did. The audio plays through the recording's signed link
 * (refetched when it expires); everything else is the call's metadata, the same objects integrators receive.
 */
export function CallView({ callId }: { callId: string }) {
  const trpc = useTRPC();
  const path = useOrgPath();
  const can = useCan();
  const recording = useQuery(trpc.recordings.get.queryOptions({ callId, includeTranscript: true }));
  const sequenceId = recording.data?.recording.sequenceId;
  const metadata = useQuery({ ...trpc.conversations.metadata.queryOptions({ sequenceId: sequenceId ?? "" }), enabled: Boolean(sequenceId) });
  const refetchRecording = recording.refetch;
  const refreshLink = useCallback(async () => {
    const result = await refetchRecording();
    if (result.error) throw result.error;
    return result.data?.recording ?? null;
  }, [refetchRecording]);

  const back = sequenceId ? { href: path(`/sequences/${encodeURIComponent(sequenceId)}`), label: "Sequence" } : { href: path("/conversations"), label: "Conversations" };
  if (recording.isPending || (sequenceId && metadata.isPending)) return <Loading rows={8} label="Loading the call…" />;
  if (recording.isError || metadata.isError) {
    const error = recording.error ?? metadata.error;
    return (
      <>
        <PageHeader title="Call" back={back} />
        {errorCode(error) === "CALL_NOT_FOUND" ? (
          <EmptyState title="Call not found">There is no such call in this organization.</EmptyState>
        ) : (
          <ErrorState error={error} retry={() => void (recording.isError ? recording.refetch() : metadata.refetch())} />
        )}
      </>
    );
  }
  const entry = recording.data.recording;
  const call = metadata.data?.metadata.find((item) => item.callId === callId);
  if (!call) {
    return (
      <>
        <PageHeader title="Call" back={back} />
        <ErrorState error={new Error("The call's details could not be found.")} retry={() => void metadata.refetch()} />
      </>
    );
  }

  const result = call.callResult;
  const transcript = entry.transcript ?? "";
  const hasAudio = entry.recordingStatus === "downloaded" && Boolean(entry.url);
  const stepCount = metadata.data?.metadata.length ?? 0;
  const crm = call.crmSchedulingDetails;
  const hasMeeting = Boolean(crm.bookingUid);

  let noAudioText: string;
  if (NOT_YET.has(result.resultType)) noAudioText = "This call has not finished yet: no recording so far.";
  else if (NOT_CONNECTED.has(result.resultType) && !transcript) noAudioText = `No audio and no transcript: the call did not connect (${result.resultType}).`;
  else if (entry.removedReason === "retention") noAudioText = "The recording was deleted under the organization's retention policy (or never kept).";
  else if (transcript) noAudioText = "There is no audio for this call (never recorded, removed by the retention policy, or kept by a provider we cannot reach). The transcript below is complete.";
  else noAudioText = "There is no audio and no transcript for this call.";

  return (
    <div className="flex flex-col gap-4">
      <PageHeader
        title={call.name}
        back={back}
        description={
          <span className="flex flex-wrap items-center gap-2">
            <ResultBadge resultType={result.resultType} />
            <span>
              Call {entry.stepNumber ?? "?"} of {stepCount}
            </span>
          </span>
        }
      />
      <CallDetails call={call} />
      {result.resultType === "Calling" && can.support && (
        <Section title="Live">
          <ListenButton callId={call.callId} contactName={call.name} />
        </Section>
      )}
      <Section title="Recording">
        {hasAudio ? (
          <RecordingPlayer url={entry.url!} expiresAt={entry.expiresAt} durationSeconds={entry.durationSeconds} refresh={refreshLink} />
        ) : (
          <Alert tone="warning" data-testid="no-audio">
            <strong>No audio.</strong> {noAudioText}
          </Alert>
        )}
      </Section>
      {(hasMeeting || result.followUpMeetingDetails) && (
        <MeetingPanel callId={call.callId} contactZone={call.timezone} followUp={result.followUpMeetingDetails ?? null} stored={crm} onReconciled={() => void metadata.refetch()} />
      )}
      <DisclosuresSection call={call} />
      <SummarySection result={result} />
      <TranscriptSection transcript={transcript} contactName={call.name} />
      <CallTimelineSection quality={call.quality} />
      <VariablesSection call={call} />
      <ActionsSections call={call} />
    </div>
  );
}
