import { sql, type SQL } from "drizzle-orm";
import type { Tx } from "@/db";
import { evaluateConditions, evaluateValue } from "./expressions";
import type { CompiledFunction, FunctionRegistry } from "./registry";
import { rows, textArray, type EngineContext, type RunSpec } from "./state";

/**
 * batchEvents. Events of a batched function wait in its open batch (one per partition and batch key): one row per
 * event in inngest_batch_events, appended by one multi-row insert per intake — no row is locked or rewritten, so
 * concurrent intakes into the same batch do not wait for each other. A batch (its rows in `id` order) becomes one run
 * with every event when it holds `maxSize` events, or when `timeout` has passed since its first event (the scheduler
 * flushes it). Events that fail the batch's `if` start a run of their own at once.
 *
 * Exactly once: a run is created in the transaction that deletes its events' rows, and a row is deleted once. Who
 * forms a batch holds a transaction-scoped advisory lock on it (tried, never waited for), so two transactions never
 * split one batch between them; a transaction that finds the lock taken leaves the batch to its holder, to the next
 * intake or to the scheduler, which forms full batches too (two intakes committing together may fill a batch neither
 * saw full).
 */

type BatchedEvent = { event: Record<string, unknown>; eventId: string };

function runSpec(fn: CompiledFunction, batch: readonly BatchedEvent[]): RunSpec {
  return { fn, event: batch[0]!.event, events: batch.map((entry) => entry.event), eventId: batch[0]!.eventId };
}

function lockKey(ctx: EngineContext, functionId: string, key: string): string {
  return `inngest-batch:${ctx.partition}:${functionId}:${key}`;
}

/**
 * Deletes the events of one open batch (the first `whole` full batches' worth, or every event) under its advisory
 * lock and returns them as runs of at most `maxSize` events; none when another transaction holds the lock. The lock
 * is taken in its own statement, so the delete's snapshot sees every batch formed by the lock's previous holder.
 */
async function takeBatch(tx: Tx, ctx: EngineContext, fn: CompiledFunction, key: string, which: "full" | "all"): Promise<RunSpec[]> {
  const maxSize = fn.batch!.maxSize;
  const [lock] = await rows<{ held: boolean }>(tx, sql`select pg_try_advisory_xact_lock(hashtextextended(${lockKey(ctx, fn.id, key)}, 0)) as held`);
  if (!lock?.held) return [];
  const taken = await rows<{ id: string; event_id: string; event: Record<string, unknown> }>(
    tx,
    sql`
    with batch as (
      select id, row_number() over (order by id) as n, count(*) over () as total
      from inngest_batch_events
      where partition = ${ctx.partition} and function_id = ${fn.id} and batch_key = ${key}
    )
    delete from inngest_batch_events b using batch
    where b.id = batch.id ${which === "full" ? sql`and batch.n <= (batch.total / ${maxSize}) * ${maxSize}` : sql``}
    returning b.id, b.event_id, b.event`,
  );
  // bigserial ids fit a double (mode "number" in the schema).
  const events = taken.sort((a, b) => Number(a.id) - Number(b.id)).map((row) => ({ event: row.event, eventId: row.event_id }));
  const specs: RunSpec[] = [];
  for (let start = 0; start < events.length; start += maxSize) specs.push(runSpec(fn, events.slice(start, start + maxSize)));
  return specs;
}

/** Adds events (in order) to the function's open batches; returns the runs to start for the batches that filled up. */
export async function addToBatches(tx: Tx, ctx: EngineContext, fn: CompiledFunction, events: readonly BatchedEvent[]): Promise<RunSpec[]> {
  const options = fn.batch!;
  const specs: RunSpec[] = [];
  const appended: Array<{ position: number; batch_key: string; event_id: string; event: Record<string, unknown> }> = [];
  for (const entry of events) {
    if (options.conditions && !evaluateConditions(options.conditions, { event: entry.event })) {
      specs.push(runSpec(fn, [entry]));
      continue;
    }
    const key = options.key ? evaluateValue(options.key, { event: entry.event }) : "";
    appended.push({ position: appended.length, batch_key: key, event_id: entry.eventId, event: entry.event });
  }
  if (appended.length === 0) return specs;
  const flushAt = new Date(ctx.now.getTime() + options.timeoutMs).toISOString();
  // One statement appends every event and counts each touched batch (its committed events and these).
  const counted = await rows<{ batch_key: string; total: number }>(
    tx,
    sql`
    with input as (
      select * from jsonb_to_recordset(${JSON.stringify(appended)}::jsonb) as x(position int, batch_key text, event_id text, event jsonb)
    ), appended as (
      insert into inngest_batch_events (partition, function_id, batch_key, event_id, event, flush_at)
      select ${ctx.partition}, ${fn.id}, batch_key, event_id, event, ${flushAt}::timestamptz from input order by position
      returning batch_key
    ), added as (
      select batch_key, count(*)::int as n from appended group by batch_key
    )
    select a.batch_key, a.n + (
      select count(*)::int from inngest_batch_events b
      where b.partition = ${ctx.partition} and b.function_id = ${fn.id} and b.batch_key = a.batch_key
    ) as total
    from added a
    order by a.batch_key`,
  );
  for (const { batch_key: key, total } of counted) {
    if (total >= options.maxSize) specs.push(...(await takeBatch(tx, ctx, fn, key, "full")));
  }
  return specs;
}

/**
 * The open batches to form now (at most 100, the oldest first): those whose timeout has passed, and those holding
 * `maxSize` events or more. An intake counts only committed events and its own, so two intakes committing at the same
 * time can together fill a batch that neither saw full; the scheduler forms it at its next look instead of at the
 * timeout. `timed_out`: take every event (else only whole batches' worth).
 */
function formableBatches(partition: string, functions: readonly CompiledFunction[], now: Date) {
  return sql`
    select e.function_id, e.batch_key, min(e.flush_at) <= ${now.toISOString()}::timestamptz as timed_out
    from inngest_batch_events e
    join unnest(${textArray(functions.map((fn) => fn.id))}::text[], ${`{${functions.map((fn) => fn.batch!.maxSize).join(",")}}`}::int[])
      as f(function_id, max_size) on f.function_id = e.function_id
    where e.partition = ${partition}
    group by e.function_id, e.batch_key, f.max_size
    having min(e.flush_at) <= ${now.toISOString()}::timestamptz or count(*) >= f.max_size
    order by min(e.flush_at)
    limit 100`;
}

function batchedFunctions(registry: FunctionRegistry): CompiledFunction[] {
  return [...registry.values()].filter((fn) => fn.batch);
}

/** SQL: whether some batch of these functions is to be formed now (see formableBatches); null when none batches. */
export function anyFormableBatch(partition: string, registry: FunctionRegistry, now: Date): SQL | null {
  const functions = batchedFunctions(registry);
  return functions.length ? sql`exists (${formableBatches(partition, functions, now)})` : null;
}

/** Forms the batches that are due (timed out or full), deleted and returned as runs to start (the caller creates them). */
export async function takeDueBatches(tx: Tx, ctx: EngineContext, registry: FunctionRegistry): Promise<RunSpec[]> {
  const functions = batchedFunctions(registry);
  if (functions.length === 0) return [];
  const due = await rows<{ function_id: string; batch_key: string; timed_out: boolean }>(tx, formableBatches(ctx.partition, functions, ctx.now));
  const specs: RunSpec[] = [];
  for (const batch of due) specs.push(...(await takeBatch(tx, ctx, registry.get(batch.function_id)!, batch.batch_key, batch.timed_out ? "all" : "full")));
  return specs;
}
