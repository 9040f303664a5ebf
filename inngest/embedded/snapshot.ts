import { sql, type SQL } from "drizzle-orm";
import type { Db } from "@/db";
import type { Job, RunSnapshot } from "./context";
import { DISCOVERY_STEP, rows, type RunRow } from "./state";

/**
 * The run snapshot a request is built from (RunSnapshot), as columns of one statement, so the stack, the step
 * results and the pending jobs agree with each other. The claim reads it for the jobs it leases; loadSnapshot for
 * the others (a run's next request chained without a claim).
 */
export function snapshotColumns(run: SQL, jobId: SQL): SQL {
  return sql`
    ${run}.status as run_status, ${run}.partition as run_partition, ${run}.event as run_event, ${run}.events as run_events,
    ${run}.stack as run_stack, ${run}.concurrency as run_concurrency, ${run}.parent_run_id as run_parent_run_id,
    (select coalesce(jsonb_object_agg(s.hashed_id, case when s.status = 'completed'
        then jsonb_build_object('type', 'data', 'data', coalesce(s.data, 'null'::jsonb))
        else jsonb_build_object('type', 'error', 'error', s.error) end), '{}'::jsonb)
      from inngest_steps s where s.run_id = ${run}.id and s.status in ('completed', 'failed')) as run_memo,
    exists (select 1 from inngest_jobs o where o.run_id = ${run}.id and o.kind = 'execute'
      and o.step_id <> ${DISCOVERY_STEP} and o.id <> ${jobId}) as run_other_step_jobs`;
}

export type SnapshotRow = {
  run_id: string;
  function_id: string;
  run_status: RunRow["status"] | null;
  run_partition: string;
  run_event: Record<string, unknown>;
  run_events: RunRow["events"];
  run_stack: string[];
  run_concurrency: RunRow["concurrency"];
  run_parent_run_id: string | null;
  run_memo: RunSnapshot["memo"];
  run_other_step_jobs: boolean;
};

export function toSnapshot(row: SnapshotRow): RunSnapshot | undefined {
  if (!row.run_status) return undefined;
  return {
    run: {
      id: row.run_id,
      partition: row.run_partition,
      functionId: row.function_id,
      status: row.run_status,
      event: row.run_event,
      events: row.run_events ?? null,
      stack: row.run_stack,
      concurrency: row.run_concurrency,
      parentRunId: row.run_parent_run_id ?? null,
    },
    memo: row.run_memo,
    otherStepJobs: row.run_other_step_jobs,
  };
}

export async function loadSnapshot(db: Db, job: Job): Promise<RunSnapshot | undefined> {
  const [row] = await rows<SnapshotRow>(
    db,
    sql`select r.id as run_id, r.function_id, ${snapshotColumns(sql`r`, sql`${job.id}`)} from inngest_runs r where r.id = ${job.runId}`,
  );
  return row ? toSnapshot(row) : undefined;
}
