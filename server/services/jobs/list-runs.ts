import { and, desc, eq, inArray, lt, sql, type SQL } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { inngestFunctions, inngestJobs, inngestRuns, inngestSteps, type RunStatus, type SerializedError } from "@/db/schema/jobs";

export type RunSummary = {
  runId: string;
  functionId: string;
  functionName: string;
  status: RunStatus;
  eventName: string;
  partition: string;
  createdAt: Date;
  startedAt: Date | null;
  endedAt: Date | null;
  /** When the run next does something on its own: a sleep ends, a wait or retry comes due. Null when done or runnable now. */
  nextWakeAt: Date | null;
  stepCount: number;
  /** Failed attempts over all steps (retries used). */
  failedAttempts: number;
  error: SerializedError | null;
};

export type ListRunsParams = {
  /** Only runs about this organization's entities, plus system runs (cron) that name none; null: every run (operator CLI). */
  organizationId: string | null;
  status?: RunStatus;
  functionId?: string;
  limit: number;
  /** Run id of the last row of the previous page (run ids are ULIDs: newest first). */
  cursor?: string;
};

/**
 * Which runs an organization may see: a run's triggering event names the entity it works on (sequence, call, bulk
 * batch, webhook delivery); the run is visible when that entity belongs to the organization. Runs whose event names
 * none of them (cron sweeps) are system runs, visible to every organization's administrators.
 */
export function runVisibleTo(organizationId: string): SQL {
  const data = sql`${inngestRuns.event}->'data'`;
  return sql`(
    (${data}->>'sequenceId') in (select id from sequences where organization_id = ${organizationId})
    or (${data}->>'callId') in (select id from calls where organization_id = ${organizationId})
    or (${data}->>'batchId') in (select id from bulk_batches where organization_id = ${organizationId})
    or (${data}->>'deliveryId') in (select id from webhook_deliveries where organization_id = ${organizationId})
    or not coalesce(${data} ?| array['sequenceId', 'callId', 'batchId', 'deliveryId'], false)
  )`;
}

/** Background-job runs of the embedded runner that the organization may see, newest first (admin role only). */
export async function listRuns(db: DbOrTx, params: ListRunsParams): Promise<{ runs: RunSummary[]; nextCursor: string | null }> {
  const filters: SQL[] = params.organizationId ? [runVisibleTo(params.organizationId)] : [];
  if (params.status) filters.push(eq(inngestRuns.status, params.status));
  if (params.functionId) filters.push(eq(inngestRuns.functionId, params.functionId));
  if (params.cursor) filters.push(lt(inngestRuns.id, params.cursor));
  const rows = await db
    .select()
    .from(inngestRuns)
    .where(filters.length ? and(...filters) : undefined)
    .orderBy(desc(inngestRuns.id))
    .limit(params.limit + 1);
  const page = rows.slice(0, params.limit);
  const runs = await summarizeRuns(db, page);
  return { runs, nextCursor: rows.length > params.limit ? (page.at(-1)?.id ?? null) : null };
}

export async function summarizeRuns(db: DbOrTx, rows: Array<typeof inngestRuns.$inferSelect>): Promise<RunSummary[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((row) => row.id);
  const [wakes, steps, names] = await Promise.all([
    db
      .select({ runId: inngestJobs.runId, at: sql<Date>`min(${inngestJobs.runAt})` })
      .from(inngestJobs)
      .where(and(inArray(inngestJobs.runId, ids), sql`${inngestJobs.leaseToken} is null`))
      .groupBy(inngestJobs.runId),
    db
      .select({ runId: inngestSteps.runId, count: sql<number>`count(*)::int`, failures: sql<number>`coalesce(sum(${inngestSteps.attempts}), 0)::int` })
      .from(inngestSteps)
      .where(inArray(inngestSteps.runId, ids))
      .groupBy(inngestSteps.runId),
    db
      .select({ id: inngestFunctions.id, name: inngestFunctions.name })
      .from(inngestFunctions)
      .where(inArray(inngestFunctions.id, [...new Set(rows.map((row) => row.functionId))])),
  ]);
  const wakeByRun = new Map(wakes.map((row) => [row.runId, new Date(row.at)]));
  const stepsByRun = new Map(steps.map((row) => [row.runId, row]));
  const nameById = new Map(names.map((row) => [row.id, row.name]));
  return rows.map((row) => ({
    runId: row.id,
    functionId: row.functionId,
    functionName: nameById.get(row.functionId) ?? row.functionId,
    status: row.status,
    eventName: String((row.event as { name?: unknown }).name ?? ""),
    partition: row.partition,
    createdAt: row.createdAt,
    startedAt: row.startedAt,
    endedAt: row.endedAt,
    nextWakeAt: wakeByRun.get(row.id) ?? null,
    stepCount: stepsByRun.get(row.id)?.count ?? 0,
    failedAttempts: stepsByRun.get(row.id)?.failures ?? 0,
    error: row.error ?? null,
  }));
}
