import { sql } from "drizzle-orm";
import { newId } from "./ids";
import type { Tx } from "@/db";
import { evaluateConditions, evaluateValue } from "./expressions";
import type { CompiledFunction, FunctionRegistry } from "./registry";
import { rows, textArray, type EngineContext, type RunSpec } from "./state";

/**
 * batchEvents. Events of a batched function collect in its open batch (one per partition and batch key, a row in
 * inngest_batches). A batch becomes one run with every event when it holds `maxSize` events, or when `timeout`
 * has passed since its first event (the scheduler flushes it). Events that fail the batch's `if` start a run of
 * their own at once.
 */

type BatchedEvent = { event: Record<string, unknown>; eventId: string };

function runSpec(fn: CompiledFunction, batch: readonly BatchedEvent[]): RunSpec {
  return { fn, event: batch[0]!.event, events: batch.map((entry) => entry.event), eventId: batch[0]!.eventId };
}

/** Adds events (in order) to the function's open batches; returns the runs to start for the batches that filled up. */
export async function addToBatches(tx: Tx, ctx: EngineContext, fn: CompiledFunction, events: readonly BatchedEvent[]): Promise<RunSpec[]> {
  const options = fn.batch!;
  const specs: RunSpec[] = [];
  const byKey = new Map<string, BatchedEvent[]>();
  for (const entry of events) {
    if (options.conditions && !evaluateConditions(options.conditions, { event: entry.event })) {
      specs.push(runSpec(fn, [entry]));
      continue;
    }
    const key = options.key ? evaluateValue(options.key, { event: entry.event }) : "";
    byKey.set(key, [...(byKey.get(key) ?? []), entry]);
  }
  const now = ctx.now.toISOString();
  const flushAt = new Date(ctx.now.getTime() + options.timeoutMs).toISOString();
  // Keys in order, so two transactions lock open batches in the same order.
  for (const key of [...byKey.keys()].sort()) {
    // Opens the batch or locks the open one (the no-op update takes the row lock and returns the current row).
    const [open] = await rows<{ id: string; events: BatchedEvent[] }>(
      tx,
      sql`
      insert into inngest_batches (id, partition, function_id, batch_key, events, created_at, flush_at)
      values (${newId()}, ${ctx.partition}, ${fn.id}, ${key}, '[]'::jsonb, ${now}::timestamptz, ${flushAt}::timestamptz)
      on conflict (partition, function_id, batch_key) do update set batch_key = excluded.batch_key
      returning id, events`,
    );
    const pending = [...open!.events, ...byKey.get(key)!];
    let filled = false;
    while (pending.length >= options.maxSize) {
      specs.push(runSpec(fn, pending.splice(0, options.maxSize)));
      filled = true;
    }
    if (pending.length === 0) {
      await tx.execute(sql`delete from inngest_batches where id = ${open!.id}`);
    } else {
      // What is left after a full batch is a new batch: its timeout starts now.
      await tx.execute(sql`
        update inngest_batches set events = ${JSON.stringify(pending)}::jsonb
          ${filled ? sql`, created_at = ${now}::timestamptz, flush_at = ${flushAt}::timestamptz` : sql``}
        where id = ${open!.id}`);
    }
  }
  return specs;
}

/** Batches of these functions whose timeout has passed, deleted and returned as runs to start (the caller creates them). */
export async function takeDueBatches(tx: Tx, ctx: EngineContext, registry: FunctionRegistry): Promise<RunSpec[]> {
  const ids = [...registry.values()].filter((fn) => fn.batch).map((fn) => fn.id);
  if (ids.length === 0) return [];
  const due = await rows<{ function_id: string; events: BatchedEvent[] }>(
    tx,
    sql`
    delete from inngest_batches where id in (
      select id from inngest_batches
      where partition = ${ctx.partition} and function_id = any(${textArray(ids)}::text[]) and flush_at <= ${ctx.now.toISOString()}::timestamptz
      order by flush_at limit 100
      for update skip locked
    )
    returning function_id, events`,
  );
  return due.filter((batch) => batch.events.length > 0).map((batch) => runSpec(registry.get(batch.function_id)!, batch.events));
}
