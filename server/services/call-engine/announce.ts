import { eq } from "drizzle-orm";
import type { Db, DbOrTx } from "@/db";
import { calls, sequences, type ResultType } from "@/db/schema";
import type { TCallEventPayload } from "@/server/schemas/call";
import { findCallMetadataRow } from "@/db/queries/calls";
import { toCallEventPayload } from "@/server/services/calls/call-metadata";
import { handOverChain } from "./chain";

/** Results a call can end with; `call/analyzed` exists only for these. */
export const finalResultTypeSet: ReadonlySet<ResultType> = new Set<ResultType>([
  "Goal Completed",
  "Goal Not Completed",
  "Voicemail",
  "Busy",
  "No Conversation",
  "Opted Out",
  "Invalid Phone Number",
  "Failed",
]);

export type CallAnalyzedData = {
  callId: string;
  sequenceId: string;
  organizationId: string;
  agentId: string;
  resultType: string;
  /** The call-result payload (DESIGN §6): the webhook body. */
  payload: TCallEventPayload;
};

/** Event ID of a call's `call/analyzed`: one per call, so a repeated send (retry, watchdog race) is dropped. */
export function callAnalyzedEventId(callId: string): string {
  return `call-analyzed:${callId}`;
}

/** The `call/analyzed` data of an analysed call (final result and `analyzedAt`); null otherwise. */
export async function buildCallAnalyzedData(db: DbOrTx, callId: string): Promise<CallAnalyzedData | null> {
  const row = await findCallMetadataRow(db, { callId, organizationId: null });
  if (!row || !finalResultTypeSet.has(row.call.resultType) || !row.call.analyzedAt) return null;
  return {
    callId,
    sequenceId: row.sequenceId,
    organizationId: row.call.organizationId,
    agentId: row.call.agentId,
    resultType: row.call.resultType,
    payload: toCallEventPayload(row),
  };
}

/** Whether the call's end hands a contact chain over to its next contact (a grouped sequence, no Goal Completed). */
export async function isChainHandOver(db: DbOrTx, callId: string): Promise<{ sequenceId: string; handOver: boolean } | null> {
  const [row] = await db
    .select({ sequenceId: sequences.id, groupKey: sequences.groupKey, resultType: calls.resultType })
    .from(calls)
    .innerJoin(sequences, eq(sequences.id, calls.sequenceId))
    .where(eq(calls.id, callId))
    .limit(1);
  if (!row) return null;
  return { sequenceId: row.sequenceId, handOver: row.groupKey !== null && finalResultTypeSet.has(row.resultType) && row.resultType !== "Goal Completed" };
}

export type FinishedCallsFollowUp = {
  /** `call/analyzed` data of each call with a final result (send with `callAnalyzedEventId`). */
  announcements: CallAnalyzedData[];
  /** Sequences to start: the next contacts of chains these calls handed over. */
  startSequenceIds: string[];
};

/**
 * What follows a batch of finished calls, from their stored state (so a retry after a crash, or a second caller,
 * produces the same): each call's `call/analyzed` data, and the chain hand-over of grouped sequences that did not reach
 * Goal Completed (each member hands over once). `endedSequenceIds`: sequences that ended without a call result
 * (opted out at dial time) whose chain hands over too.
 */
export async function followUpFinishedCalls(
  db: Db,
  params: { callIds: string[]; endedSequenceIds?: string[]; now: Date },
): Promise<FinishedCallsFollowUp> {
  const announcements: CallAnalyzedData[] = [];
  const handOver = new Set<string>(params.endedSequenceIds ?? []);
  for (const callId of params.callIds) {
    const announcement = await buildCallAnalyzedData(db, callId);
    if (!announcement) continue;
    announcements.push(announcement);
    const chain = await isChainHandOver(db, callId);
    if (chain?.handOver) handOver.add(chain.sequenceId);
  }
  const startSequenceIds: string[] = [];
  for (const sequenceId of handOver) {
    startSequenceIds.push(...(await handOverChain(db, { sequenceId, now: params.now })).activatedSequenceIds);
  }
  return { announcements, startSequenceIds };
}
