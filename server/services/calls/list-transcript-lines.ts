import { and, asc, eq, gt } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { callTranscriptLines, type TranscriptSpeaker } from "@/db/schema";

export type ListTranscriptLinesParams = {
  /** Verified organization of the caller: another organization's call has no lines for it. */
  organizationId: string;
  callId: string;
  /** The `cursor` of the last line already shown; omitted for the first read. */
  after?: number;
  limit?: number;
};

export type TranscriptLineView = { cursor: number; speaker: TranscriptSpeaker; text: string; offsetMs: number; createdAt: string };

/**
 * A call's transcript turns stored after `after`, oldest first (a console polls this to follow a live call of the
 * real voice engine). `nextCursor` is the last line's cursor, or `after` when nothing new was stored.
 */
export async function listTranscriptLines(db: DbOrTx, params: ListTranscriptLinesParams): Promise<{ lines: TranscriptLineView[]; nextCursor: number | null }> {
  const limit = Math.min(Math.max(params.limit ?? 200, 1), 500);
  const rows = await db
    .select()
    .from(callTranscriptLines)
    .where(
      and(
        eq(callTranscriptLines.organizationId, params.organizationId),
        eq(callTranscriptLines.callId, params.callId),
        params.after !== undefined ? gt(callTranscriptLines.id, params.after) : undefined,
      ),
    )
    .orderBy(asc(callTranscriptLines.id))
    .limit(limit);
  const lines = rows.map((row) => ({ cursor: row.id, speaker: row.speaker, text: row.text, offsetMs: row.offsetMs, createdAt: row.createdAt.toISOString() }));
  return { lines, nextCursor: lines.at(-1)?.cursor ?? params.after ?? null };
}
