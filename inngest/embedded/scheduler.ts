import { sql } from "drizzle-orm";
import { newId } from "./ids";
import { inngestCronSchedules, inngestFunctions } from "@/db/schema/jobs";
import { anyFormableBatch, takeDueBatches } from "./batches";
import { engineContext, type RunnerContext } from "./context";
import { commitAsynchronously, createRuns, rows, textArray, transaction, type RunSpec } from "./state";

/**
 * Time-driven work besides jobs: cron schedules (inngest_cron_schedules) and batchEvents batches whose timeout
 * passed (inngest_batch_events), and the earliest time anything of a runner becomes due.
 */

/** Records the synced functions and their cron schedules (a removed cron's schedule goes). */
export async function recordRegistration(runner: RunnerContext): Promise<void> {
  const now = runner.now();
  await transaction(runner.db, async (tx) => {
    for (const fn of runner.registry().values()) {
      const appId = fn.id.startsWith("outbound-calling-") ? "outbound-calling" : fn.id.split("-")[0]!;
      await tx
        .insert(inngestFunctions)
        .values({ id: fn.id, appId, name: fn.name, config: fn.config, registeredAt: now })
        .onConflictDoUpdate({ target: inngestFunctions.id, set: { name: fn.name, config: fn.config, registeredAt: now } });
      const crons = fn.cronTriggers.map((trigger) => trigger.cron);
      await tx.execute(sql`
        delete from inngest_cron_schedules
        where partition = ${runner.partition} and function_id = ${fn.id}
          ${crons.length ? sql`and cron <> all(${textArray(crons)}::text[])` : sql``}`);
      for (const trigger of fn.cronTriggers) {
        const nextAt = trigger.schedule.nextRun(now);
        if (!nextAt) continue;
        await tx.insert(inngestCronSchedules).values({ partition: runner.partition, functionId: fn.id, cron: trigger.cron, nextAt }).onConflictDoNothing();
      }
    }
  });
}

function functionIds(runner: RunnerContext, which: "cron" | "batch" | "all"): string[] {
  return [...runner.registry().values()]
    .filter((fn) => which === "all" || (which === "cron" ? fn.cronTriggers.length > 0 : fn.batch !== null))
    .map((fn) => fn.id);
}

/**
 * Starts the runs of due cron schedules (one run per due schedule, however many ticks were missed while no runner
 * was up) and of batches whose timeout passed or that are full (filled by intakes that committed together, see
 * batches.ts). Returns whether it started any. One cheap query when nothing is due.
 */
export async function startDueRuns(runner: RunnerContext): Promise<boolean> {
  const cronIds = functionIds(runner, "cron");
  const batchIds = functionIds(runner, "batch");
  if (cronIds.length === 0 && batchIds.length === 0) return false;
  const now = runner.now().toISOString();
  const [due] = await rows<{ crons: boolean; batches: boolean }>(
    runner.db,
    sql`
    select
      exists (select 1 from inngest_cron_schedules where partition = ${runner.partition}
        and function_id = any(${textArray(cronIds)}::text[]) and next_at <= ${now}::timestamptz) as crons,
      ${anyFormableBatch(runner.partition, runner.registry(), runner.now()) ?? sql`false`} as batches`,
  );
  if (!due?.crons && !due?.batches) return false;
  return transaction(runner.db, async (tx) => {
    await commitAsynchronously(tx);
    const ctx = engineContext(runner);
    const specs: RunSpec[] = [];
    if (due.crons) {
      const schedules = await tx
        .select()
        .from(inngestCronSchedules)
        .where(
          sql`${inngestCronSchedules.partition} = ${runner.partition} and ${inngestCronSchedules.functionId} = any(${textArray(cronIds)}::text[])
            and ${inngestCronSchedules.nextAt} <= ${now}::timestamptz`,
        )
        .for("update", { skipLocked: true });
      for (const schedule of schedules) {
        const fn = ctx.registry.get(schedule.functionId);
        const trigger = fn?.cronTriggers.find((candidate) => candidate.cron === schedule.cron);
        if (!fn || !trigger) continue;
        const nextAt = trigger.schedule.nextRun(ctx.now) ?? new Date(ctx.now.getTime() + 365 * 86_400_000);
        await tx.execute(sql`
          update inngest_cron_schedules set next_at = ${nextAt.toISOString()}::timestamptz, last_fired_at = ${now}::timestamptz
          where partition = ${schedule.partition} and function_id = ${schedule.functionId} and cron = ${schedule.cron}`);
        specs.push({ fn, event: { id: newId(), name: "inngest/scheduled.timer", data: { cron: schedule.cron }, ts: ctx.now.getTime() } });
      }
    }
    if (due.batches) specs.push(...(await takeDueBatches(tx, ctx, ctx.registry)));
    if (specs.length) await createRuns(tx, ctx, specs);
    return specs.length > 0;
  });
}

/**
 * The earliest time something of this runner becomes runnable: a pending job, a cron schedule, a batch timeout
 * (and, with `leases`, a lease that expires: a dead runner's job). Null when nothing is pending.
 */
export async function nextDueAt(runner: RunnerContext, options: { leases?: boolean; skipFunctions?: ReadonlySet<string> } = {}): Promise<Date | null> {
  const ids = functionIds(runner, "all").filter((id) => !options.skipFunctions?.has(id));
  if (ids.length === 0) return null;
  const fns = sql`${textArray(ids)}::text[]`;
  const [row] = await rows<{ at: string | null }>(
    runner.db,
    sql`
    select least(
      (select min(run_at) from inngest_jobs where partition = ${runner.partition} and function_id = any(${fns}) and lease_token is null),
      (select min(next_at) from inngest_cron_schedules where partition = ${runner.partition} and function_id = any(${fns})),
      (select min(flush_at) from inngest_batch_events where partition = ${runner.partition} and function_id = any(${fns}))
      ${
        options.leases
          ? sql`, (select min(lease_expires_at) from inngest_jobs where partition = ${runner.partition} and function_id = any(${fns}) and lease_token is not null)`
          : sql``
      }
    ) as at`,
  );
  return row?.at ? new Date(row.at) : null;
}
