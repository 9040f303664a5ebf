import { and, asc, eq, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { carrierOfEngine } from "@/server/carriers/registry";
import { findAgent } from "@/db/queries/agents";
import { findCallsOfSequences } from "@/db/queries/calls";
import { findSequenceMessages, toSequenceMessage } from "@/db/queries/messages";
import { getSequenceOrThrow, type Sequence } from "@/db/queries/sequences";
import { sequences, type LifecycleStatus } from "@/db/schema";
import type { TSequenceView, TStepState } from "@/server/schemas/sequence";
import { callStatusOf } from "@/server/services/calls/call-metadata";
import { signableRecordingKey } from "@/server/services/recordings/recording-entries";
import { toApiSequence } from "@/server/services/sequences/sequence-shape";

export type GetSequenceViewParams = {
  organizationId: string;
  sequenceId: string;
  /** The process's voice engine kind: the embedded simulator lets the console play a callback. */
  voiceEngineKind?: string;
};

type SequenceViewStep = TSequenceView["steps"][number];
type SequenceViewCall = TSequenceView["calls"][number];

export const MAX_CHAIN_MEMBERS_LISTED = 50;

const RUNNING: ReadonlySet<string> = new Set(["Calling", "Processing Analysis"]);
const PENDING: ReadonlySet<string> = new Set(["Scheduled", "Rescheduled"]);

function stepState(lastResult: string | null, lifecycleStatus: LifecycleStatus): TStepState {
  if (lastResult === null) return lifecycleStatus === "in progress" ? "to come" : "not run";
  if (RUNNING.has(lastResult)) return "in progress";
  if (PENDING.has(lastResult)) return "scheduled";
  if (lastResult === "Cancelled") return "cancelled";
  return "done";
}

function messageStepState(status: string): TStepState {
  if (status === "scheduled") return "scheduled";
  if (status === "sending") return "in progress";
  if (status === "skipped") return "cancelled";
  return "done";
}

/**
 * The console's sequence page: the contact, lifecycle status, each of the steps copied onto the sequence with what
 * became of it (done / in progress / scheduled / to come), its calls, and the chain it waits in. Scoped to the
 * organization: SEQUENCE_NOT_FOUND for an unknown sequence and for one of another organization alike.
 */
export async function getSequenceView(db: DbOrTx, params: GetSequenceViewParams): Promise<TSequenceView> {
  const { organizationId } = params;
  const sequence = await getSequenceOrThrow(db, params);
  const [agent, callRows, chain, messageRows] = await Promise.all([
    findAgent(db, { organizationId, agentId: sequence.agentId }),
    findCallsOfSequences(db, { organizationId, sequenceIds: [sequence.id] }),
    findChain(db, { organizationId, sequence }),
    findSequenceMessages(db, { organizationId, sequenceIds: [sequence.id] }),
  ]);

  const viewCalls: SequenceViewCall[] = callRows.map((call) => ({
    callId: call.id,
    stepNumber: call.stepNumber,
    direction: call.direction,
    attempt: call.attempt,
    scheduledAt: call.scheduledAt.toISOString(),
    endedAt: call.endedAt ? call.endedAt.toISOString() : null,
    resultType: call.resultType,
    callStatus: callStatusOf(call.resultType),
    duration: call.duration,
    hasRecording: signableRecordingKey(call) !== null,
    hasTranscript: call.hasTranscript,
    hasMeeting: call.hasMeeting,
  }));

  const steps: SequenceViewStep[] = sequence.steps.map((step, index) => {
    const stepNumber = index + 1;
    const latest = callRows.filter((call) => call.stepNumber === stepNumber).at(-1) ?? null;
    const message = messageRows.find((row) => row.direction === "outbound" && row.stepNumber === stepNumber) ?? null;
    if (message) {
      return { ...step, stepNumber, state: messageStepState(message.status), callId: null, resultType: message.status, scheduledAt: message.scheduledAt.toISOString() };
    }
    return {
      ...step,
      stepNumber,
      state: stepState(latest?.resultType ?? null, sequence.lifecycleStatus),
      callId: latest?.id ?? null,
      resultType: latest?.resultType ?? null,
      scheduledAt: latest ? latest.scheduledAt.toISOString() : null,
    };
  });

  return {
    sequence: {
      ...toApiSequence(sequence, callRows[0]?.scheduledAt ?? null),
      agentName: agent?.name ?? "",
      requestedScheduledAt: sequence.scheduledAt ? sequence.scheduledAt.toISOString() : null,
      batchId: sequence.batchId,
      updatedAt: sequence.updatedAt.toISOString(),
      endedAt: sequence.endedAt ? sequence.endedAt.toISOString() : null,
    },
    steps,
    messages: messageRows.map((row) => ({ ...toSequenceMessage(row), html: row.html, transport: row.transport })),
    canSimulateCallback: carrierOfEngine(params.voiceEngineKind ?? "").simulatesCallbacks && callRows.some((call) => call.direction === "outbound" && call.dialedAt !== null),
    calls: viewCalls,
    chain,
  };
}

/** Contact chaining (groupByField): the sequence's group in chain order, and how many of it still wait; null when not chained. */
async function findChain(db: DbOrTx, params: { organizationId: string; sequence: Sequence }): Promise<TSequenceView["chain"]> {
  const { sequence } = params;
  if (!sequence.groupKey) return null;
  const sameChain = and(
    eq(sequences.organizationId, params.organizationId),
    eq(sequences.agentId, sequence.agentId),
    eq(sequences.groupKey, sequence.groupKey),
  );
  const [members, [counts]] = await Promise.all([
    db
      .select({
        sequenceId: sequences.id,
        name: sequences.name,
        phoneNumber: sequences.phoneNumber,
        position: sequences.chainPosition,
        chainStatus: sequences.chainStatus,
        lifecycleStatus: sequences.lifecycleStatus,
      })
      .from(sequences)
      .where(sameChain)
      .orderBy(asc(sequences.chainPosition), asc(sequences.createdAt))
      .limit(MAX_CHAIN_MEMBERS_LISTED + 1),
    db
      .select({ waiting: sql<number>`count(*)::int` })
      .from(sequences)
      .where(and(sameChain, eq(sequences.chainStatus, "waiting"), eq(sequences.lifecycleStatus, "in progress"))),
  ]);
  const separator = sequence.groupKey.indexOf("=");
  return {
    groupByField: sequence.groupByField ?? (separator > 0 ? sequence.groupKey.slice(0, separator) : null),
    groupValue: separator >= 0 ? sequence.groupKey.slice(separator + 1) : sequence.groupKey,
    position: sequence.chainPosition,
    chainStatus: sequence.chainStatus,
    waitingCount: counts?.waiting ?? 0,
    members: members.slice(0, MAX_CHAIN_MEMBERS_LISTED),
    truncated: members.length > MAX_CHAIN_MEMBERS_LISTED,
  };
}
