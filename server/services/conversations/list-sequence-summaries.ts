import { and, eq, inArray } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { findCallsOfSequences, type CallOfSequence } from "@/db/queries/calls";
import { agents, sequences } from "@/db/schema";
import type { TSequenceSummary } from "@/server/schemas/sequence";
import { callStatusOf } from "@/server/services/calls/call-metadata";
import { signableRecordingKey } from "@/server/services/recordings/recording-entries";

export type ListSequenceSummariesParams = {
  /** Verified organization of the caller: sequences of other organizations are never returned. */
  organizationId: string;
  sequenceIds: string[];
};

/**
 * One row per sequence of a search page (the console hydrates the IDs of GET /conversations/search with it instead of
 * fetching every call's full metadata). Returned in the order of `sequenceIds`; IDs that are unknown or belong to
 * another organization are left out.
 */
export async function listSequenceSummaries(db: DbOrTx, params: ListSequenceSummariesParams): Promise<{ sequences: TSequenceSummary[] }> {
  const ids = [...new Set(params.sequenceIds)];
  if (ids.length === 0) return { sequences: [] };
  const [sequenceRows, callRows] = await Promise.all([
    db
      .select({
        id: sequences.id,
        agentId: sequences.agentId,
        agentName: agents.name,
        name: sequences.name,
        phoneNumber: sequences.phoneNumber,
        timezone: sequences.timezone,
        lifecycleStatus: sequences.lifecycleStatus,
      })
      .from(sequences)
      .innerJoin(agents, eq(agents.id, sequences.agentId))
      .where(and(eq(sequences.organizationId, params.organizationId), inArray(sequences.id, ids))),
    findCallsOfSequences(db, { organizationId: params.organizationId, sequenceIds: ids }),
  ]);
  const callsBySequence = new Map<string, CallOfSequence[]>();
  for (const call of callRows) {
    const list = callsBySequence.get(call.sequenceId) ?? [];
    list.push(call);
    callsBySequence.set(call.sequenceId, list);
  }
  const byId = new Map(sequenceRows.map((row) => [row.id, row]));
  const summaries: TSequenceSummary[] = [];
  for (const id of ids) {
    const row = byId.get(id);
    if (!row) continue;
    const sequenceCalls = callsBySequence.get(id) ?? [];
    const last = sequenceCalls.at(-1);
    const first = sequenceCalls[0];
    summaries.push({
      sequenceId: row.id,
      agentId: row.agentId,
      agentName: row.agentName,
      name: row.name,
      phoneNumber: row.phoneNumber,
      timezone: row.timezone,
      lifecycleStatus: row.lifecycleStatus,
      callCount: sequenceCalls.length,
      firstScheduledAt: first ? first.scheduledAt.toISOString() : null,
      lastCall: last
        ? {
            callId: last.id,
            stepNumber: last.stepNumber,
            resultType: last.resultType,
            callStatus: callStatusOf(last.resultType),
            scheduledAt: last.scheduledAt.toISOString(),
            hasRecording: signableRecordingKey(last) !== null,
            hasTranscript: last.hasTranscript,
          }
        : null,
    });
  }
  return { sequences: summaries };
}
