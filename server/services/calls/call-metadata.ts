import type { CallMetadataRow } from "@/db/queries/calls";
import { appBaseUrl } from "@/server/config/settings";
import type { TCallEventPayload, TCallMetadata } from "@/server/schemas/call";
import { publicQualityOf } from "@/server/voice/call-quality";

/** `Goal Not Completed` → `goal-not-completed`. */
export function callStatusOf(resultType: string): string {
  return resultType.trim().toLowerCase().replace(/\s+/g, "-");
}

export function callUrlOf(callId: string): string {
  return `${appBaseUrl()}/calls/${encodeURIComponent(callId)}`;
}

/** The call-result payload of one call (webhook body, sample and metadata share it). Never includes recordingUrl. */
export function toCallEventPayload(row: CallMetadataRow): TCallEventPayload {
  const call = row.call;
  return {
    agentId: call.agentId,
    agentName: row.agentName,
    callId: call.id,
    name: row.name,
    phoneNumber: row.phoneNumber,
    phoneNumberExt: row.phoneNumberExt,
    fromPhoneNumber: call.fromPhoneNumber,
    scheduledAt: call.scheduledAt.toISOString(),
    timezone: row.timezone,
    direction: call.direction,
    customInputVariables: row.customInputVariables,
    duration: call.duration,
    callUrl: callUrlOf(call.id),
    rescheduledAt: call.rescheduledAt ? call.rescheduledAt.toISOString() : null,
    callResult: {
      resultType: call.resultType,
      summary: call.summary,
      extractedVariables: call.extractedVariables,
      agentActions: call.agentActions,
      humanActions: call.humanActions,
      transcription: call.transcript ?? "",
      outcomes: call.outcomes,
      ...(call.followUpMeetingDetails ? { followUpMeetingDetails: call.followUpMeetingDetails } : {}),
    },
    crmSchedulingDetails: call.crmSchedulingDetails ?? {},
    sequence: { sequenceId: row.sequenceId, lifecycleStatus: row.lifecycleStatus },
    promptVersionId: call.promptVersionId ?? "",
    attempt: call.attempt,
    createdAt: call.createdAt.toISOString(),
    updatedAt: call.updatedAt.toISOString(),
    callStatus: callStatusOf(call.resultType),
    quality: publicQualityOf(call.quality),
    disclosures: call.disclosures ?? null,
    contentRemoved: call.contentRemovedAt ? { removedAt: call.contentRemovedAt.toISOString(), reason: "retention" } : null,
  };
}

export function toCallMetadata(row: CallMetadataRow, recordingUrl?: string): TCallMetadata {
  return { ...toCallEventPayload(row), ...(recordingUrl ? { recordingUrl } : {}) };
}
