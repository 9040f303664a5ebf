import { sql } from "drizzle-orm";
import type { Db } from "@/db";
import { callEvents } from "@/db/schema";

/** Events are kept this long (docs/compliance.md, GET /events). */
export const EVENT_RETENTION_DAYS = 30;
const BATCH_SIZE = 5_000;

export type DeleteExpiredEventsParams = { now: Date; maxBatches: number };

/**
 * Deletes feed events created more than EVENT_RETENTION_DAYS before `now`, in batches of 5,000 rows (short
 * statements, so feed readers and writers never wait long). Internal: every organization. `done` when nothing older is left.
 */
export async function deleteExpiredEvents(db: Db, params: DeleteExpiredEventsParams): Promise<{ deleted: number; done: boolean }> {
  const cutoff = new Date(params.now.getTime() - EVENT_RETENTION_DAYS * 86_400_000);
  let deleted = 0;
  for (let batch = 0; batch < params.maxBatches; batch += 1) {
    const rows = await db.execute<{ position: number }>(sql`
      delete from ${callEvents}
      where position in (select position from ${callEvents} where created_at < ${cutoff.toISOString()}::timestamptz limit ${BATCH_SIZE})
      returning position`);
    deleted += rows.length;
    if (rows.length < BATCH_SIZE) return { deleted, done: true };
  }
  return { deleted, done: false };
}
