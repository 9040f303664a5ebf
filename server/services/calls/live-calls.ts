import { and, asc, count, eq, min, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { agents, callTranscriptLines, calls, sequences, twilioCalls } from "@/db/schema";
import { AppError } from "@/server/errors";
import { listTranscriptLines, type TranscriptLineView } from "./list-transcript-lines";

/** A page of live calls: more than this many at once are not followed one by one in a console. */
export const MAX_LIVE_CALLS = 100;

export type LiveCall = {
  callId: string;
  sequenceId: string;
  contact: { name: string; phoneNumber: string; timezone: string };
  agent: { agentId: string; name: string };
  /** `ringing` until the call is answered (the provider says so, or the first turn is spoken). */
  state: "ringing" | "answered";
  dialedAt: string | null;
  answeredAt: string | null;
  /** Seconds since the answer (or since the dial while ringing). */
  secondsSoFar: number;
  lineCount: number;
};

/**
 * The organization's calls in progress (`Calling`), oldest dial first. Whether one is answered comes from the
 * real engine's Twilio state, or from its first live transcript line (the simulator reports no answer time).
 */
export async function listLiveCalls(db: DbOrTx, params: { organizationId: string; now: Date }): Promise<{ calls: LiveCall[] }> {
  const lines = db
    .select({
      callId: callTranscriptLines.callId,
      lineCount: count().as("line_count"),
      firstSpokenAt: min(sql<Date>`${callTranscriptLines.createdAt} - make_interval(secs => ${callTranscriptLines.offsetMs} / 1000.0)`).as("first_spoken_at"),
    })
    .from(callTranscriptLines)
    .where(eq(callTranscriptLines.organizationId, params.organizationId))
    .groupBy(callTranscriptLines.callId)
    .as("lines");
  const rows = await db
    .select({
      callId: calls.id,
      sequenceId: calls.sequenceId,
      dialedAt: calls.dialedAt,
      scheduledAt: calls.scheduledAt,
      name: sequences.name,
      phoneNumber: sequences.phoneNumber,
      timezone: sequences.timezone,
      agentId: agents.id,
      agentName: agents.name,
      twilioAnsweredAt: twilioCalls.answeredAt,
      lineCount: lines.lineCount,
      firstSpokenAt: lines.firstSpokenAt,
    })
    .from(calls)
    .innerJoin(sequences, eq(sequences.id, calls.sequenceId))
    .innerJoin(agents, eq(agents.id, calls.agentId))
    .leftJoin(twilioCalls, eq(twilioCalls.callId, calls.id))
    .leftJoin(lines, eq(lines.callId, calls.id))
    .where(and(eq(calls.organizationId, params.organizationId), eq(calls.resultType, "Calling")))
    .orderBy(asc(calls.dialedAt), asc(calls.id))
    .limit(MAX_LIVE_CALLS);
  const seconds = (from: Date) => Math.max(0, Math.floor((params.now.getTime() - from.getTime()) / 1000));
  return {
    calls: rows.map((row) => {
      const spoken = row.firstSpokenAt ? new Date(row.firstSpokenAt) : null;
      const answeredAt = row.twilioAnsweredAt ?? spoken;
      const dialedAt = row.dialedAt ?? row.scheduledAt;
      return {
        callId: row.callId,
        sequenceId: row.sequenceId,
        contact: { name: row.name, phoneNumber: row.phoneNumber, timezone: row.timezone },
        agent: { agentId: row.agentId, name: row.agentName },
        state: answeredAt ? "answered" : "ringing",
        dialedAt: row.dialedAt?.toISOString() ?? null,
        answeredAt: answeredAt?.toISOString() ?? null,
        secondsSoFar: seconds(answeredAt ?? dialedAt),
        lineCount: Number(row.lineCount ?? 0),
      };
    }),
  };
}

export type LiveTranscript = { callId: string; resultType: string; live: boolean; lines: TranscriptLineView[]; nextCursor: number | null };

/** The lines of one call after `after` (a console polls this), with whether the call is still in progress. */
export async function getLiveTranscript(db: DbOrTx, params: { organizationId: string; callId: string; after?: number }): Promise<LiveTranscript> {
  const [call] = await db
    .select({ resultType: calls.resultType })
    .from(calls)
    .where(and(eq(calls.id, params.callId), eq(calls.organizationId, params.organizationId)))
    .limit(1);
  if (!call) throw new AppError("CALL_NOT_FOUND", `Call ${params.callId} not found.`);
  const { lines, nextCursor } = await listTranscriptLines(db, params);
  return { callId: params.callId, resultType: call.resultType, live: call.resultType === "Calling", lines, nextCursor };
}

export type EndCallEngine = { endCall?: (callId: string) => Promise<boolean> };

/**
 * Hangs up a call in progress through the voice engine; the call then ends as any call does (its `call.ended`
 * event, analysis, webhooks). CALL_NOT_FOUND for another organization's call; CONFLICT when it is not in progress or
 * the engine cannot end it from here.
 */
export async function hangUpCall(db: DbOrTx, params: { organizationId: string; callId: string; engine: EndCallEngine }): Promise<{ callId: string; hungUp: true }> {
  const [call] = await db
    .select({ resultType: calls.resultType })
    .from(calls)
    .where(and(eq(calls.id, params.callId), eq(calls.organizationId, params.organizationId)))
    .limit(1);
  if (!call) throw new AppError("CALL_NOT_FOUND", `Call ${params.callId} not found.`);
  if (call.resultType !== "Calling") throw new AppError("CONFLICT", "This call is not in progress any more.");
  const ended = params.engine.endCall ? await params.engine.endCall(params.callId) : false;
  if (!ended) throw new AppError("CONFLICT", "The voice engine could not hang up this call: it has just ended, or it runs on another server.");
  return { callId: params.callId, hungUp: true };
}
