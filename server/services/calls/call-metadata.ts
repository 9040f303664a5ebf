import { and, asc, eq, inArray } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { agents, calls, sequences } from "@/db/schema";
import { appBaseUrl } from "@/server/config/settings";
import type { TCallEventPayload, TCallMetadata } from "@/server/schemas/call";

/** `Goal Not Completed` → `goal-not-completed`. */
export function callStatusOf(resultType: string): string {
  return resultType.trim().toLowerCase().replace(/\s+/g, "-");
}

export function callUrlOf(callId: string): string {
  return `${appBaseUrl()}/calls/${encodeURIComponent(callId)}`;
}

const callColumns = {
  call: calls,
  sequenceId: sequences.id,
  lifecycleStatus: sequences.lifecycleStatus,
  name: sequences.name,
  phoneNumber: sequences.phoneNumber,
  phoneNumberExt: sequences.phoneNumberExt,
  timezone: sequences.timezone,
  customInputVariables: sequences.customInputVariables,
  agentName: agents.name,
};

export type CallMetadataRow = {
  call: typeof calls.$inferSelect;
  sequenceId: string;
  lifecycleStatus: string;
  name: string;
  phoneNumber: string;
  phoneNumberExt: string;
  timezone: string;
  customInputVariables: Record<string, string>;
  agentName: string;
};

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
    direction: "outbound",
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
  };
}

export function toCallMetadata(row: CallMetadataRow, recordingUrl?: string): TCallMetadata {
  return { ...toCallEventPayload(row), ...(recordingUrl ? { recordingUrl } : {}) };
}

/** Every call of the given sequences in the organization, ordered by sequence, step and attempt. */
export async function findCallMetadataRows(db: DbOrTx, params: { organizationId: string; sequenceIds: string[] }): Promise<CallMetadataRow[]> {
  if (params.sequenceIds.length === 0) return [];
  return db
    .select(callColumns)
    .from(calls)
    .innerJoin(sequences, eq(sequences.id, calls.sequenceId))
    .innerJoin(agents, eq(agents.id, calls.agentId))
    .where(and(eq(calls.organizationId, params.organizationId), inArray(calls.sequenceId, params.sequenceIds)))
    .orderBy(asc(calls.sequenceId), asc(calls.stepNumber), asc(calls.attempt));
}

/** One call's row, scoped to the organization when given (internal callers such as Inngest steps pass none). */
export async function findCallMetadataRow(db: DbOrTx, params: { callId: string; organizationId?: string }): Promise<CallMetadataRow | null> {
  const rows = await db
    .select(callColumns)
    .from(calls)
    .innerJoin(sequences, eq(sequences.id, calls.sequenceId))
    .innerJoin(agents, eq(agents.id, calls.agentId))
    .where(and(eq(calls.id, params.callId), params.organizationId ? eq(calls.organizationId, params.organizationId) : undefined))
    .limit(1);
  return rows[0] ?? null;
}
