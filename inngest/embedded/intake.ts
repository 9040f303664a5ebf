import { sql, type SQL } from "drizzle-orm";
import { newId } from "./ids";
import type { Tx } from "@/db";
import { addToBatches } from "./batches";
import { evaluateConditions, type Condition, type Operand } from "./expressions";
import type { CompiledFunction } from "./registry";
import type { SerializedError } from "@/db/schema/jobs";
import {
  completeStep,
  createRuns,
  isTerminal,
  lockActiveRuns,
  lockRun,
  rows,
  textArray,
  WAKE_CHANNEL,
  type EngineContext,
  type RunRow,
  type RunSpec,
  type StepResult,
} from "./state";

/**
 * Event intake: stores events and acts on them — starts the runs they trigger, cancels runs whose cancelOn matches
 * and resumes step.waitForEvent waiters — in the caller's transaction, for a whole batch at once: one statement
 * records the events (deduplicated by id) and finds the waiters they resume, one statement creates every triggered
 * run with its first job, and one query per cancelOn that the batch's event names can match finds the runs to cancel.
 * The number of statements does not grow with the number of events.
 *
 * The outcome is the one of handling the events one after the other in order: an event cancels the runs started by
 * earlier events of the batch, not those it or later events start.
 *
 * `finishRun` lives here too: ending a run emits its lifecycle events, and a cancelling event ends runs, so the two
 * call each other; in one module, run state (`state.ts`) stays below intake and never imports it.
 */

export type EventPayload = {
  id?: string;
  name: string;
  data?: Record<string, unknown>;
  ts?: number;
  user?: unknown;
  v?: string;
  [key: string]: unknown;
};

const EVENT_DEDUPE_MS = 24 * 60 * 60 * 1000;
const MAX_INTERNAL_EVENT_DEPTH = 5;

type Item = {
  /** Position among the fresh events of this call (their order). */
  order: number;
  /** Internal ULID, the row id in inngest_events. */
  id: string;
  externalId: string | null;
  event: Record<string, unknown>;
};

/**
 * Records events and acts on them in the caller's transaction. Returns the internal event ids in payload order
 * (`inngest.send()`'s `ids`); a duplicate (same `id` within 24 h, or earlier in the same call) gets the first one's.
 */
export async function ingestEventsInTx(tx: Tx, ctx: EngineContext, payloads: readonly EventPayload[], depth = 0): Promise<string[]> {
  if (depth > MAX_INTERNAL_EVENT_DEPTH || payloads.length === 0) return [];
  for (const payload of payloads) {
    if (!payload || typeof payload.name !== "string" || !payload.name) throw new Error("Every event needs a name.");
  }
  const ids: string[] = new Array(payloads.length);
  const sameAs = new Map<number, number>();
  const firstIndexOf = new Map<string, number>();
  const candidates: Array<Item & { index: number }> = [];
  payloads.forEach((payload, index) => {
    const externalId = typeof payload.id === "string" && payload.id ? payload.id : null;
    if (externalId !== null) {
      const first = firstIndexOf.get(externalId);
      if (first !== undefined) {
        sameAs.set(index, first);
        return;
      }
      firstIndexOf.set(externalId, index);
    }
    const id = newId();
    const event: Record<string, unknown> = {
      ...payload,
      id: externalId ?? id,
      name: payload.name,
      data: payload.data ?? {},
      ts: typeof payload.ts === "number" ? payload.ts : ctx.now.getTime(),
    };
    candidates.push({ order: candidates.length, index, id, externalId, event });
  });

  const { fresh, waiters } = await recordEvents(tx, ctx, candidates);
  const freshOrders = new Set(fresh);
  const items: Item[] = [];
  const duplicates: Array<{ index: number; externalId: string }> = [];
  for (const candidate of candidates) {
    if (freshOrders.has(candidate.order)) {
      ids[candidate.index] = candidate.id;
      items.push(candidate);
    } else duplicates.push({ index: candidate.index, externalId: candidate.externalId! });
  }
  if (duplicates.length) {
    const known = await rows<{ external_id: string; event_id: string }>(
      tx,
      sql`select external_id, event_id from inngest_event_ids where external_id = any(${textArray(duplicates.map((d) => d.externalId))}::text[])`,
    );
    const byExternal = new Map(known.map((row) => [row.external_id, row.event_id]));
    for (const duplicate of duplicates) ids[duplicate.index] = byExternal.get(duplicate.externalId) ?? "";
  }
  for (const [index, first] of sameAs) ids[index] = ids[first]!;
  if (items.length === 0) return ids;

  const startedBy = await startTriggeredRuns(tx, ctx, items);
  await cancelMatchingRuns(tx, ctx, items, startedBy, depth);
  await resumeWaiters(tx, ctx, items, waiters);
  return ids;
}

type WaiterRow = [runId: string, hashedId: string, conditions: Condition[] | null, order: number];

/**
 * One statement: claims the event ids (a claimed id within 24 h makes the event a duplicate), stores the fresh
 * events and finds the waiting steps whose event name and first equality they match.
 */
async function recordEvents(tx: Tx, ctx: EngineContext, candidates: readonly Item[]): Promise<{ fresh: number[]; waiters: WaiterRow[] }> {
  const now = ctx.now.toISOString();
  const expiresAt = new Date(ctx.now.getTime() + EVENT_DEDUPE_MS).toISOString();
  const input = candidates.map((item) => ({ order: item.order, id: item.id, external_id: item.externalId, name: item.event.name, payload: item.event }));
  const [row] = await rows<{ fresh: number[]; waiters: WaiterRow[] }>(
    tx,
    sql`
    with input as (
      select * from jsonb_to_recordset(${JSON.stringify(input)}::jsonb) as x("order" int, id text, external_id text, name text, payload jsonb)
    ), claimed as (
      insert into inngest_event_ids (external_id, event_id, expires_at)
      select external_id, id, ${expiresAt}::timestamptz from input where external_id is not null
      on conflict (external_id) do update set event_id = excluded.event_id, expires_at = excluded.expires_at
        where inngest_event_ids.expires_at <= ${now}::timestamptz
      returning external_id
    ), fresh as (
      select * from input where external_id is null or external_id in (select external_id from claimed)
    ), stored as (
      insert into inngest_events (id, external_id, name, payload, received_at)
      select id, external_id, name, payload, ${now}::timestamptz from fresh
      returning id
    ), waiters as (
      select s.run_id, s.hashed_id, s.wait_conditions, f."order"
      from fresh f
      join inngest_steps s on s.status = 'waiting' and s.wait_event = f.name
        and (s.wait_match_path is null or (f.payload #> s.wait_match_path) = s.wait_match_value)
    )
    select
      (select coalesce(jsonb_agg("order" order by "order"), '[]'::jsonb) from fresh where (select count(*) from stored) >= 0) as fresh,
      (select coalesce(jsonb_agg(jsonb_build_array(run_id, hashed_id, wait_conditions, "order") order by run_id, hashed_id, "order"), '[]'::jsonb)
        from waiters) as waiters`,
  );
  return { fresh: row?.fresh ?? [], waiters: row?.waiters ?? [] };
}

function isTriggeredBy(fn: CompiledFunction, event: Record<string, unknown>): boolean {
  return fn.eventTriggers.some((trigger) => trigger.event === event.name && (!trigger.conditions || evaluateConditions(trigger.conditions, { event })));
}

/** Starts every run the events trigger (batchEvents functions collect them into batches). Returns run id → event order. */
async function startTriggeredRuns(tx: Tx, ctx: EngineContext, items: readonly Item[]): Promise<Map<string, number>> {
  const names = new Set(items.map((item) => item.event.name));
  const functions = [...ctx.registry.values()].filter((fn) => fn.eventTriggers.some((trigger) => names.has(trigger.event)));
  const specs: RunSpec[] = [];
  const orders: number[] = [];
  for (const fn of functions) {
    const triggering = items.filter((item) => isTriggeredBy(fn, item.event));
    if (triggering.length === 0) continue;
    if (fn.batch) {
      for (const spec of await addToBatches(tx, ctx, fn, triggering.map((item) => ({ event: item.event, eventId: item.id })))) {
        specs.push(spec);
        orders.push(Number.MAX_SAFE_INTEGER);
      }
      continue;
    }
    for (const item of triggering) {
      specs.push({ fn, event: item.event, eventId: item.id });
      orders.push(item.order);
    }
  }
  const startedBy = new Map<string, number>();
  if (specs.length === 0) return startedBy;
  const runIds = await createRuns(tx, ctx, specs);
  runIds.forEach((runId, index) => {
    if (runId) startedBy.set(runId, orders[index]!);
  });
  return startedBy;
}

function operandSql(operand: Operand, run: SQL, incoming: SQL): SQL {
  if (operand.kind === "literal") return sql`${JSON.stringify(operand.value)}::jsonb`;
  return sql`(${operand.root === "event" ? run : incoming} #> ${textArray(operand.path)}::text[])`;
}

/** A cancelOn condition in SQL: `event` is the run's trigger event, `async` the incoming event. Missing fields never match. */
function conditionSql(condition: Condition, run: SQL, incoming: SQL): SQL {
  const left = operandSql(condition.left, run, incoming);
  const right = operandSql(condition.right, run, incoming);
  return condition.op === "=="
    ? sql`${left} = ${right}`
    : sql`(${left} is not null and ${right} is not null and ${left} <> ${right})`;
}

/** cancelOn: one query per (function, cancel) whose event the batch contains; each run is cancelled by its first matching event. */
async function cancelMatchingRuns(tx: Tx, ctx: EngineContext, items: readonly Item[], startedBy: Map<string, number>, depth: number) {
  const cancelledBy = new Map<string, Item>();
  for (const fn of ctx.registry.values()) {
    for (const cancel of fn.cancel) {
      const matching = items.filter((item) => item.event.name === cancel.event);
      if (matching.length === 0) continue;
      const filters = cancel.conditions.map((condition) => conditionSql(condition, sql`r.event`, sql`e.payload`));
      if (cancel.timeoutMs !== null) filters.push(sql`r.created_at >= ${new Date(ctx.now.getTime() - cancel.timeoutMs).toISOString()}::timestamptz`);
      const input = matching.map((item) => ({ order: item.order, payload: item.event }));
      const found = await rows<{ run_id: string; order: number }>(
        tx,
        sql`
        select r.id as run_id, e."order"
        from jsonb_to_recordset(${JSON.stringify(input)}::jsonb) as e("order" int, payload jsonb)
        join inngest_runs r on r.function_id = ${fn.id} and r.status in ('queued', 'running')
          ${filters.length ? sql`and ${sql.join(filters, sql` and `)}` : sql``}
        order by r.id, e."order"`,
      );
      for (const { run_id: runId, order } of found) {
        // An event does not cancel the runs that it or a later event of this batch started.
        const started = startedBy.get(runId);
        if (started !== undefined && started >= order) continue;
        const current = cancelledBy.get(runId);
        if (!current || current.order > order) cancelledBy.set(runId, items.find((item) => item.order === order)!);
      }
    }
  }
  if (cancelledBy.size === 0) return;
  const runs = await lockActiveRuns(tx, [...cancelledBy.keys()]);
  for (const run of runs.values()) await finishRun(tx, ctx, run, { status: "cancelled", eventId: cancelledBy.get(run.id)!.id }, depth);
}

/** Resumes each waiting step with the first event of the batch that satisfies its whole condition. */
async function resumeWaiters(tx: Tx, ctx: EngineContext, items: readonly Item[], waiters: readonly WaiterRow[]) {
  if (waiters.length === 0) return;
  const byOrder = new Map(items.map((item) => [item.order, item]));
  const chosen = new Map<string, { runId: string; hashedId: string; event: Record<string, unknown> }>();
  for (const [runId, hashedId, conditions, order] of waiters) {
    const key = `${runId}\u0000${hashedId}`;
    if (chosen.has(key)) continue;
    const event = byOrder.get(order)?.event;
    if (event && evaluateConditions(conditions ?? [], { async: event })) chosen.set(key, { runId, hashedId, event });
  }
  if (chosen.size === 0) return;
  const runs = await lockActiveRuns(
    tx,
    [...chosen.values()].map((waiter) => waiter.runId),
  );
  const resumedPartitions = new Set<string>();
  for (const waiter of chosen.values()) {
    const run = runs.get(waiter.runId);
    if (!run) continue;
    const info = { stepId: waiter.hashedId, displayName: waiter.hashedId, op: "WaitForEvent" };
    const { completed } = await completeStep(tx, run, waiter.hashedId, { data: waiter.event }, info, ctx.now, { onlyIf: "waiting", dropPending: "timer" });
    if (completed) resumedPartitions.add(run.partition);
  }
  for (const partition of resumedPartitions) await tx.execute(sql`select pg_notify(${WAKE_CHANNEL}, ${partition})`);
}

export type RunOutcome =
  | { status: "completed"; output: unknown }
  | { status: "failed"; error: SerializedError }
  | { status: "cancelled"; eventId: string | null };

/**
 * Ends a run: drops its pending jobs, closes its open steps, resumes a parent waiting in step.invoke and emits
 * inngest/function.finished | failed | cancelled (which triggers onFailure handlers). The run must be locked.
 */
export async function finishRun(tx: Tx, ctx: EngineContext, run: RunRow, outcome: RunOutcome, depth = 0): Promise<boolean> {
  const at = ctx.now.toISOString();
  const output = outcome.status === "completed" && outcome.output !== undefined && outcome.output !== null ? JSON.stringify(outcome.output) : null;
  const error = outcome.status === "failed" ? JSON.stringify(outcome.error) : null;
  const cancelledBy = outcome.status === "cancelled" ? outcome.eventId : null;
  const [ended] = await rows<{ ended: number }>(
    tx,
    sql`
    with ended as (
      update inngest_runs set status = ${outcome.status}, output = ${output}::jsonb, error = ${error}::jsonb,
        cancelled_by_event_id = ${cancelledBy}, ended_at = ${at}::timestamptz, updated_at = ${at}::timestamptz
      where id = ${run.id} and status in ('queued', 'running')
      returning id
    ), dropped as (
      -- Leased jobs are left to their runner, which finds the run ended and drops its result.
      delete from inngest_jobs where run_id = ${run.id} and lease_token is null and exists (select 1 from ended)
    ), closed as (
      update inngest_steps set status = 'cancelled', wake_at = null
      where run_id = ${run.id} and status in ('planned', 'sleeping', 'waiting', 'invoking') and exists (select 1 from ended)
    )
    select count(*)::int as ended from ended`,
  );
  if (!ended?.ended) return false;

  if (run.parentRunId && run.parentStepId) {
    const parent = await lockRun(tx, run.parentRunId);
    if (parent && !isTerminal(parent.status)) {
      const result: StepResult =
        outcome.status === "completed"
          ? { data: outcome.output ?? null }
          : {
              error:
                outcome.status === "failed"
                  ? outcome.error
                  : { name: "Error", message: `Invoked function run ${run.id} (${run.functionId}) was cancelled.` },
            };
      const info = { stepId: run.parentStepId, displayName: run.parentStepId, op: "InvokeFunction" };
      await completeStep(tx, parent, run.parentStepId, result, info, ctx.now, { dropPending: "timer" });
    }
  }

  const base = { function_id: run.functionId, run_id: run.id, event: run.event };
  const events: EventPayload[] = [];
  if (outcome.status === "completed") events.push({ name: "inngest/function.finished", data: { ...base, result: outcome.output ?? null } });
  if (outcome.status === "failed") {
    events.push({ name: "inngest/function.failed", data: { ...base, error: outcome.error } });
    events.push({ name: "inngest/function.finished", data: { ...base, error: outcome.error } });
  }
  if (outcome.status === "cancelled") {
    events.push({ name: "inngest/function.cancelled", data: { ...base, error: { name: "Error", message: "function cancelled" } } });
  }
  await ingestEventsInTx(tx, { ...ctx, partition: run.partition }, events, depth + 1);
  return true;
}
