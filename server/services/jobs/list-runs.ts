import { and, desc, eq, inArray, lt, sql, type SQL } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { inngestFunctions, inngestJobs, inngestRuns, inngestSteps, type RunStatus } from "@/db/schema/jobs";
import { INNGEST_APP_ID } from "@/inngest/client";
import { redactSummaryForOrganization } from "./org-scoped-output";
import type { RunSummary } from "./run-types";

export type ListRunsParams = {
  /** Only runs about this organization's entities; null: every run, system runs included (operators, `npm run jobs`). */
  organizationId: string | null;
  status?: RunStatus;
  functionId?: string;
  limit: number;
  /** Run id of the last row of the previous page (run ids are ULIDs: newest first). */
  cursor?: string;
};

/** The event keys that name an organization's entity, and where those entities live. */
const ENTITY_KEYS = [
  ["sequenceId", "sequences"],
  ["callId", "calls"],
  ["batchId", "bulk_batches"],
  ["deliveryId", "webhook_deliveries"],
  ["messageId", "sequence_messages"],
  ["runId", "agent_test_runs"],
] as const;

/**
 * Which runs an organization may see: a run's triggering event (for an onFailure run, the event of the run that failed)
 * names the entity it works on (sequence, call, bulk batch, webhook delivery, sequence message, agent test run); the run is visible only when it names at
 * least one and every one it names belongs to the organization. Runs that name none (crons: the watchdog, retention,
 * resume sweeps) are system runs: operators only.
 */
/**
 * Functions whose runs handle many organizations' entities at once (batched events, sweeps): system runs whatever
 * their first event names. Operators only.
 */
export const SYSTEM_FUNCTIONS = ["dispatch-calls", "dispatch-due-calls", "analyze-call", "enqueue-webhook-deliveries", "call-watchdog"];

export function runVisibleTo(organizationId: string): SQL {
  const subject = sql`(case when ${inngestRuns.event}->>'name' = 'inngest/function.failed' then ${inngestRuns.event}->'data'->'event'->'data' else ${inngestRuns.event}->'data' end)`;
  const names = ENTITY_KEYS.map(([key]) => sql.raw(`'${key}'`));
  const each = ENTITY_KEYS.map(
    ([key, table]) =>
      sql`(not coalesce(${subject} ? ${sql.raw(`'${key}'`)}, false) or (${subject}->>${sql.raw(`'${key}'`)}) in (select id from ${sql.raw(table)} where organization_id = ${organizationId}))`,
  );
  const system = sql.join(
    SYSTEM_FUNCTIONS.map((id) => sql`${`${INNGEST_APP_ID}-${id}`}`),
    sql`, `,
  );
  return sql`(${inngestRuns.functionId} not in (${system}) and coalesce(${subject} ?| array[${sql.join(names, sql`, `)}], false) and ${sql.join(each, sql` and `)})`;
}

/** Background-job runs of the embedded runner that the organization may see (or all, for operators), newest first. */
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
  const summaries = await summarizeRuns(db, page);
  const runs = params.organizationId ? summaries.map(redactSummaryForOrganization) : summaries;
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
