import { sql } from "drizzle-orm";
import type { RunnerContext } from "./context";
import { rows } from "./state";

/** Retention: ended runs (with their steps and attempts) and events are deleted after these ages. */
export const RUN_RETENTION_MS = 14 * 86_400_000;
export const EVENT_RETENTION_MS = 7 * 86_400_000;
const PRUNE_BATCH = 5000;

/**
 * Deletes ended runs of the runner's partition older than RUN_RETENTION_MS (with their steps and attempts), events
 * older than EVENT_RETENTION_MS, and expired idempotency keys and event ids. Returns what it deleted.
 */
export async function prune(runner: RunnerContext): Promise<{ runs: number; events: number }> {
  const now = runner.now();
  const runCutoff = new Date(now.getTime() - RUN_RETENTION_MS).toISOString();
  const eventCutoff = new Date(now.getTime() - EVENT_RETENTION_MS).toISOString();
  let runs = 0;
  let events = 0;
  for (;;) {
    const deleted = await rows<{ id: string }>(
      runner.db,
      sql`
      with old as (
        select id from inngest_runs
        where partition = ${runner.partition} and ended_at < ${runCutoff}::timestamptz
        limit ${PRUNE_BATCH}
      ), steps as (delete from inngest_steps where run_id in (select id from old)),
      attempts as (delete from inngest_attempts where run_id in (select id from old))
      delete from inngest_runs where id in (select id from old) returning id`,
    );
    runs += deleted.length;
    if (deleted.length < PRUNE_BATCH) break;
  }
  for (;;) {
    const deleted = await rows<{ id: string }>(
      runner.db,
      sql`
      delete from inngest_events where id in (
        select id from inngest_events where received_at < ${eventCutoff}::timestamptz limit ${PRUNE_BATCH}
      ) returning id`,
    );
    events += deleted.length;
    if (deleted.length < PRUNE_BATCH) break;
  }
  await runner.db.execute(sql`delete from inngest_idempotency_keys where expires_at < ${now.toISOString()}::timestamptz`);
  await runner.db.execute(sql`delete from inngest_event_ids where expires_at < ${now.toISOString()}::timestamptz`);
  return { runs, events };
}
