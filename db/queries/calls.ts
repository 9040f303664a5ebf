import { and, asc, eq, inArray, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { agents, calls, sequences } from "@/db/schema";
import { AppError } from "@/server/errors";

export type Call = typeof calls.$inferSelect;

/**
 * A call by ID. `organizationId` scopes the lookup for callers acting for an organization (a call of another one is
 * not found); `null` is for internal callers that act for none (Inngest steps, the call engine, voice callbacks).
 */
export type CallLookupParams = { callId: string; organizationId: string | null };

function callIs(params: CallLookupParams) {
  return params.organizationId === null
    ? eq(calls.id, params.callId)
    : and(eq(calls.id, params.callId), eq(calls.organizationId, params.organizationId));
}

export async function findCall(db: DbOrTx, params: CallLookupParams): Promise<Call | null> {
  const [call] = await db.select().from(calls).where(callIs(params)).limit(1);
  return call ?? null;
}

/** The call, scoped to the organization: 404 CALL_NOT_FOUND for an unknown call and for one of another organization alike. */
export async function getCallOrThrow(db: DbOrTx, params: { callId: string; organizationId: string }): Promise<Call> {
  const call = await findCall(db, params);
  if (!call) throw new AppError("CALL_NOT_FOUND", `Call ${params.callId} was not found.`);
  return call;
}

/** The call with its sequence and agent (what dialing, analysis and booking work from). */
export async function findCallWithSequenceAndAgent(db: DbOrTx, params: CallLookupParams) {
  const [row] = await db
    .select({ call: calls, sequence: sequences, agent: agents })
    .from(calls)
    .innerJoin(sequences, eq(sequences.id, calls.sequenceId))
    .innerJoin(agents, eq(agents.id, calls.agentId))
    .where(callIs(params))
    .limit(1);
  return row ?? null;
}

/** A call of a sequence as lists show it: no transcript or analysis, only whether there are a transcript and a meeting. */
export type CallOfSequence = Pick<
  Call,
  "id" | "sequenceId" | "stepNumber" | "direction" | "attempt" | "scheduledAt" | "dialedAt" | "endedAt" | "resultType" | "duration" | "recordingKey" | "recordingDeletedAt"
> & { hasTranscript: boolean; hasMeeting: boolean };

/** Every call of the given sequences in the organization, ordered by sequence, step and attempt. */
export async function findCallsOfSequences(db: DbOrTx, params: { organizationId: string; sequenceIds: string[] }): Promise<CallOfSequence[]> {
  if (params.sequenceIds.length === 0) return [];
  return db
    .select({
      id: calls.id,
      sequenceId: calls.sequenceId,
      stepNumber: calls.stepNumber,
      direction: calls.direction,
      attempt: calls.attempt,
      scheduledAt: calls.scheduledAt,
      dialedAt: calls.dialedAt,
      endedAt: calls.endedAt,
      resultType: calls.resultType,
      duration: calls.duration,
      recordingKey: calls.recordingKey,
      recordingDeletedAt: calls.recordingDeletedAt,
      // Transcripts can be long: only whether there is one.
      hasTranscript: sql<boolean>`coalesce(length(btrim(${calls.transcript})), 0) > 0`,
      hasMeeting: sql<boolean>`coalesce(${calls.crmSchedulingDetails} ->> 'bookingUid', '') <> ''`,
    })
    .from(calls)
    .where(and(eq(calls.organizationId, params.organizationId), inArray(calls.sequenceId, params.sequenceIds)))
    .orderBy(asc(calls.sequenceId), asc(calls.stepNumber), asc(calls.attempt));
}

const callMetadataColumns = {
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

/** A call with the sequence and agent fields of the call-result payload (services/calls/call-metadata.ts maps it). */
export type CallMetadataRow = {
  call: Call;
  sequenceId: string;
  lifecycleStatus: string;
  name: string;
  phoneNumber: string;
  phoneNumberExt: string;
  timezone: string;
  customInputVariables: Record<string, string>;
  agentName: string;
};

/** Every call of the given sequences in the organization with its payload fields, ordered by sequence, step and attempt. */
export async function findCallMetadataRows(db: DbOrTx, params: { organizationId: string; sequenceIds: string[] }): Promise<CallMetadataRow[]> {
  if (params.sequenceIds.length === 0) return [];
  return db
    .select(callMetadataColumns)
    .from(calls)
    .innerJoin(sequences, eq(sequences.id, calls.sequenceId))
    .innerJoin(agents, eq(agents.id, calls.agentId))
    .where(and(eq(calls.organizationId, params.organizationId), inArray(calls.sequenceId, params.sequenceIds)))
    .orderBy(asc(calls.sequenceId), asc(calls.stepNumber), asc(calls.attempt));
}

/** One call with its payload fields. */
export async function findCallMetadataRow(db: DbOrTx, params: CallLookupParams): Promise<CallMetadataRow | null> {
  const [row] = await db
    .select(callMetadataColumns)
    .from(calls)
    .innerJoin(sequences, eq(sequences.id, calls.sequenceId))
    .innerJoin(agents, eq(agents.id, calls.agentId))
    .where(callIs(params))
    .limit(1);
  return row ?? null;
}
