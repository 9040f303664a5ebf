import { and, asc, eq, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { agents, calls, sequences, type AgentStep, type ChainStatus, type LifecycleStatus } from "@/db/schema";
import { AppError } from "@/server/errors";
import { callStatusOf } from "@/server/services/calls/call-metadata";
import { signableRecordingKey } from "@/server/services/recordings/recording-entries";

export type GetSequenceViewParams = { organizationId: string; sequenceId: string };

/** What happened to one step of the sequence, as far as its calls tell. */
export type StepState = "done" | "in progress" | "scheduled" | "cancelled" | "to come" | "not run";

export type SequenceViewStep = AgentStep & {
  stepNumber: number;
  state: StepState;
  /** The latest call of the step, if any. */
  callId: string | null;
  resultType: string | null;
  /** When the latest call of the step was (or is) scheduled. */
  scheduledAt: string | null;
};

export type SequenceViewCall = {
  callId: string;
  stepNumber: number;
  attempt: number;
  scheduledAt: string;
  endedAt: string | null;
  resultType: string;
  callStatus: string;
  duration: number;
  hasRecording: boolean;
  hasTranscript: boolean;
  hasMeeting: boolean;
};

export type ChainMember = {
  sequenceId: string;
  name: string;
  phoneNumber: string;
  position: number | null;
  chainStatus: ChainStatus | null;
  lifecycleStatus: LifecycleStatus;
};

export type SequenceView = {
  sequence: {
    sequenceId: string;
    agentId: string;
    agentName: string;
    name: string;
    phoneNumber: string;
    phoneNumberExt: string;
    toEmailAddress: string;
    timezone: string;
    requestedScheduledAt: string | null;
    scheduledBy: string;
    lifecycleStatus: LifecycleStatus;
    customInputVariables: Record<string, string>;
    batchId: string | null;
    createdAt: string;
    updatedAt: string;
    endedAt: string | null;
  };
  steps: SequenceViewStep[];
  calls: SequenceViewCall[];
  /** Contact chaining (groupByField): the group's members in chain order; null for a sequence that is not chained. */
  chain: {
    groupByField: string | null;
    groupValue: string;
    position: number | null;
    chainStatus: ChainStatus | null;
    /** In-progress members still waiting for their turn (the ones after this sequence and any before it). */
    waitingCount: number;
    members: ChainMember[];
    /** True when the group has more members than listed. */
    truncated: boolean;
  } | null;
};

export const MAX_CHAIN_MEMBERS_LISTED = 50;

const RUNNING: ReadonlySet<string> = new Set(["Calling", "Processing Analysis"]);
const PENDING: ReadonlySet<string> = new Set(["Scheduled", "Rescheduled"]);

function stepState(lastResult: string | null, lifecycleStatus: LifecycleStatus): StepState {
  if (lastResult === null) return lifecycleStatus === "in progress" ? "to come" : "not run";
  if (RUNNING.has(lastResult)) return "in progress";
  if (PENDING.has(lastResult)) return "scheduled";
  if (lastResult === "Cancelled") return "cancelled";
  return "done";
}

/**
 * The console's sequence page: the contact, lifecycle status, each of the steps copied onto the sequence with what
 * became of it (done / in progress / scheduled / to come), its calls, and the chain it waits in. Scoped to the
 * organization: SEQUENCE_NOT_FOUND for an unknown sequence and for one of another organization alike.
 */
export async function getSequenceView(db: DbOrTx, params: GetSequenceViewParams): Promise<SequenceView> {
  const [row] = await db
    .select({ sequence: sequences, agentName: agents.name })
    .from(sequences)
    .innerJoin(agents, eq(agents.id, sequences.agentId))
    .where(and(eq(sequences.id, params.sequenceId), eq(sequences.organizationId, params.organizationId)))
    .limit(1);
  if (!row) throw new AppError("SEQUENCE_NOT_FOUND", `Sequence ${params.sequenceId} was not found.`);
  const sequence = row.sequence;

  const callRows = await db
    .select({
      id: calls.id,
      stepNumber: calls.stepNumber,
      attempt: calls.attempt,
      scheduledAt: calls.scheduledAt,
      endedAt: calls.endedAt,
      resultType: calls.resultType,
      duration: calls.duration,
      recordingKey: calls.recordingKey,
      recordingDeletedAt: calls.recordingDeletedAt,
      hasTranscript: sql<boolean>`coalesce(length(btrim(${calls.transcript})), 0) > 0`,
      bookingUid: sql<string | null>`${calls.crmSchedulingDetails} ->> 'bookingUid'`,
    })
    .from(calls)
    .where(and(eq(calls.sequenceId, sequence.id), eq(calls.organizationId, params.organizationId)))
    .orderBy(asc(calls.stepNumber), asc(calls.attempt));

  const viewCalls: SequenceViewCall[] = callRows.map((call) => ({
    callId: call.id,
    stepNumber: call.stepNumber,
    attempt: call.attempt,
    scheduledAt: call.scheduledAt.toISOString(),
    endedAt: call.endedAt ? call.endedAt.toISOString() : null,
    resultType: call.resultType,
    callStatus: callStatusOf(call.resultType),
    duration: call.duration,
    hasRecording: signableRecordingKey(call) !== null,
    hasTranscript: call.hasTranscript,
    hasMeeting: Boolean(call.bookingUid),
  }));

  const steps: SequenceViewStep[] = sequence.steps.map((step, index) => {
    const stepNumber = index + 1;
    const latest = callRows.filter((call) => call.stepNumber === stepNumber).at(-1) ?? null;
    return {
      ...step,
      stepNumber,
      state: stepState(latest?.resultType ?? null, sequence.lifecycleStatus),
      callId: latest?.id ?? null,
      resultType: latest?.resultType ?? null,
      scheduledAt: latest ? latest.scheduledAt.toISOString() : null,
    };
  });

  let chain: SequenceView["chain"] = null;
  if (sequence.groupKey) {
    const members = await db
      .select({
        sequenceId: sequences.id,
        name: sequences.name,
        phoneNumber: sequences.phoneNumber,
        position: sequences.chainPosition,
        chainStatus: sequences.chainStatus,
        lifecycleStatus: sequences.lifecycleStatus,
      })
      .from(sequences)
      .where(
        and(
          eq(sequences.organizationId, params.organizationId),
          eq(sequences.agentId, sequence.agentId),
          eq(sequences.groupKey, sequence.groupKey),
        ),
      )
      .orderBy(asc(sequences.chainPosition), asc(sequences.createdAt))
      .limit(MAX_CHAIN_MEMBERS_LISTED + 1);
    const [counts] = await db
      .select({ waiting: sql<number>`count(*)::int` })
      .from(sequences)
      .where(
        and(
          eq(sequences.organizationId, params.organizationId),
          eq(sequences.agentId, sequence.agentId),
          eq(sequences.groupKey, sequence.groupKey),
          eq(sequences.chainStatus, "waiting"),
          eq(sequences.lifecycleStatus, "in progress"),
        ),
      );
    const separator = sequence.groupKey.indexOf("=");
    chain = {
      groupByField: sequence.groupByField ?? (separator > 0 ? sequence.groupKey.slice(0, separator) : null),
      groupValue: separator >= 0 ? sequence.groupKey.slice(separator + 1) : sequence.groupKey,
      position: sequence.chainPosition,
      chainStatus: sequence.chainStatus,
      waitingCount: counts?.waiting ?? 0,
      members: members.slice(0, MAX_CHAIN_MEMBERS_LISTED),
      truncated: members.length > MAX_CHAIN_MEMBERS_LISTED,
    };
  }

  return {
    sequence: {
      sequenceId: sequence.id,
      agentId: sequence.agentId,
      agentName: row.agentName,
      name: sequence.name,
      phoneNumber: sequence.phoneNumber,
      phoneNumberExt: sequence.phoneNumberExt,
      toEmailAddress: sequence.toEmailAddress ?? "",
      timezone: sequence.timezone,
      requestedScheduledAt: sequence.scheduledAt ? sequence.scheduledAt.toISOString() : null,
      scheduledBy: sequence.scheduledBy,
      lifecycleStatus: sequence.lifecycleStatus,
      customInputVariables: sequence.customInputVariables,
      batchId: sequence.batchId,
      createdAt: sequence.createdAt.toISOString(),
      updatedAt: sequence.updatedAt.toISOString(),
      endedAt: sequence.endedAt ? sequence.endedAt.toISOString() : null,
    },
    steps,
    calls: viewCalls,
    chain,
  };
}
