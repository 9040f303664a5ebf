import { and, asc, count, eq, inArray, sql, type Column } from "drizzle-orm";
import { MAX_SEQUENCE_IDS_PER_RECORDINGS_REQUEST } from "@/server/schemas/limits";
import type { DbOrTx } from "@/db";
import { calls, sequences } from "@/db/schema";
import { AppError } from "@/server/errors";
import type { RecordingStore } from "@/server/storage/recording-store";
import { buildRecordingEntries, recordingCallColumns, type RecordingCallRow, type RecordingEntry } from "./recording-entries";

/** At most this many calls across the requested sequences (spec, Limits). */
export const MAX_CALLS_PER_RECORDINGS_REQUEST = 500;

/** `column = any($1::text[])`: one array parameter, where `in (...)` would bind (and plan) up to 100 parameters. */
function isAnyOf(column: Column, values: string[]) {
  return sql`${column} = any(${sql.param(values)}::text[])`;
}

export type ListRecordingsParams = {
  /** Verified organization of the caller: every query below is scoped by it. */
  organizationId: string;
  sequenceIds: string[];
  includeTranscripts: boolean;
  now: Date;
  store?: RecordingStore;
};

export type ListRecordingsResult = {
  recordings: Array<{ sequenceId: string; calls: RecordingEntry[] }>;
  notFound?: string[];
};

/**
 * POST /recordings: every call of the requested sequences with a signed URL where audio exists.
 * Duplicates collapse (first occurrence keeps its place); unknown IDs and IDs of other organizations are listed in
 * `notFound` and never fail the request. Raises INVALID_REQUEST for 0 or more than 100 IDs (the schema normally
 * catches that first) and TOO_MANY_CALLS when the sequences hold more than 500 calls together: nothing is truncated.
 */
export async function listRecordings(db: DbOrTx, params: ListRecordingsParams): Promise<ListRecordingsResult> {
  const { organizationId } = params;
  if (params.sequenceIds.length === 0 || params.sequenceIds.length > MAX_SEQUENCE_IDS_PER_RECORDINGS_REQUEST) {
    throw new AppError("INVALID_REQUEST", `sequenceIds: send 1 to ${MAX_SEQUENCE_IDS_PER_RECORDINGS_REQUEST} sequence IDs.`);
  }
  const sequenceIds = [...new Set(params.sequenceIds)];

  const columns = params.includeTranscripts ? { ...recordingCallColumns, transcript: calls.transcript } : recordingCallColumns;
  // Two independent reads in parallel; the call read stops one past the limit so an oversized request costs little.
  const [found, rows] = await Promise.all([
    db
      .select({ id: sequences.id })
      .from(sequences)
      .where(and(eq(sequences.organizationId, organizationId), isAnyOf(sequences.id, sequenceIds))),
    db
      .select(columns)
      .from(calls)
      .where(and(eq(calls.organizationId, organizationId), isAnyOf(calls.sequenceId, sequenceIds)))
      .orderBy(asc(calls.sequenceId), asc(calls.stepNumber), asc(calls.attempt))
      .limit(MAX_CALLS_PER_RECORDINGS_REQUEST + 1) as Promise<RecordingCallRow[]>,
  ]);

  if (rows.length > MAX_CALLS_PER_RECORDINGS_REQUEST) {
    const [total] = await db
      .select({ n: count() })
      .from(calls)
      .where(and(eq(calls.organizationId, organizationId), inArray(calls.sequenceId, sequenceIds)));
    throw new AppError(
      "TOO_MANY_CALLS",
      `The requested sequences contain ${total?.n ?? "more than " + MAX_CALLS_PER_RECORDINGS_REQUEST} calls; at most ${MAX_CALLS_PER_RECORDINGS_REQUEST} per request. Split the sequence IDs across requests.`,
    );
  }

  const entries = await buildRecordingEntries(rows, { includeTranscripts: params.includeTranscripts, now: params.now, store: params.store });
  const bySequence = new Map<string, RecordingEntry[]>();
  rows.forEach((row, index) => {
    const list = bySequence.get(row.sequenceId);
    if (list) list.push(entries[index]!);
    else bySequence.set(row.sequenceId, [entries[index]!]);
  });

  const existing = new Set(found.map((row) => row.id));
  const recordings: ListRecordingsResult["recordings"] = [];
  const notFound: string[] = [];
  for (const sequenceId of sequenceIds) {
    if (existing.has(sequenceId)) recordings.push({ sequenceId, calls: bySequence.get(sequenceId) ?? [] });
    else notFound.push(sequenceId);
  }
  return notFound.length > 0 ? { recordings, notFound } : { recordings };
}
