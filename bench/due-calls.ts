/**
 * Due-calls benchmark: `npx tsx bench/due-calls.ts [--scheduled N] [--finished N] [--rate R] [--seconds S]`.
 *
 * Starts its own embedded Postgres (temp dir, migrated) and fills it with N (default 1,000,000) `Scheduled` calls
 * spread over the next 30 days plus --finished (default 250,000) finished ones, then measures:
 * 1. the due-batch query (`findDueCalls`: `result_type = 'Scheduled' and scheduled_at <= $now order by scheduled_at
 *    limit 100`, the watchdog sweep's query) — latency percentiles, and its plan; then the same query with the partial
 *    index `calls_due_idx` dropped, as the baseline that shows what the index buys;
 * 2. dispatch lag under load: R calls per second (default 100) fall due for S seconds (default 20) on top of the
 *    million scheduled; a poller runs `findDueCalls` every 250 ms and queues what is due; 8 workers dial each queued
 *    call through the real `dialDueCall` (locks, opt-out, agent, window, Scheduled → Calling, place-call request)
 *    against a voice engine that only records the dial. Lag = dialedAt − scheduledAt.
 * Goals (DESIGN §10): ≤ 5 ms per batch query; dispatch lag p99 ≤ 1 s.
 */
import os from "node:os";
import { sql } from "drizzle-orm";
import { createDb, type Db } from "@/db";
import { calls } from "@/db/schema";
import { createAgent } from "@/server/services/agents/create-agent";
import { dialDueCall } from "@/server/services/call-engine/dial-call";
import { dueCallsSql, findDueCalls } from "@/server/services/call-engine/watchdog";
import { createOrganization } from "@/server/services/organizations/create-organization";
import type { VoiceEngine } from "@/server/voice/types";
import { percentile, startBenchDatabase } from "./lib/harness";

function flag(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? Number(process.argv[index + 1]) : fallback;
}

const SCHEDULED = flag("scheduled", 1_000_000);
const FINISHED = flag("finished", 250_000);
const RATE = flag("rate", 100);
const SECONDS = flag("seconds", 20);
const BATCH = 100;
const POLL_MS = 250;
const DIAL_CONCURRENCY = 8;
const CALLS_PER_SEQUENCE = 100;

const ms = (value: number) => `${value.toFixed(2)} ms`;

async function fill(db: Db, organizationId: string, agentId: string) {
  const steps = JSON.stringify([
    { stepType: "CALL", delaySeconds: 0, delaySecondsMax: null, executionWindowConfig: { dayOffset: 0, timeWindow: { startTime: 0, endTime: 1440 }, timezoneSource: "contact" } },
  ]);
  const insertBlock = async (prefix: string, count: number, resultType: string, scheduledExpr: string) => {
    const sequenceCount = Math.ceil(count / CALLS_PER_SEQUENCE);
    await db.execute(sql.raw(`
      insert into sequences (id, organization_id, agent_id, name, phone_number, timezone, scheduled_by, steps, lifecycle_status, created_at, updated_at)
      select 'call-sequence.${prefix}' || g, '${organizationId}', '${agentId}', 'Bench contact ' || g,
             '+1202' || lpad((g % 10000000)::text, 7, '0'), 'America/New_York', 'api', '${steps}'::jsonb,
             ${resultType === "Scheduled" ? "'in progress'" : "'done'"}, now(), now()
      from generate_series(0, ${sequenceCount - 1}) g`));
    for (let offset = 0; offset < count; offset += 250_000) {
      const size = Math.min(250_000, count - offset);
      await db.execute(sql.raw(`
        insert into calls (id, organization_id, agent_id, sequence_id, step_number, attempt, scheduled_at, result_type, created_at, updated_at)
        select 'call.${prefix}' || g, '${organizationId}', '${agentId}', 'call-sequence.${prefix}' || (g / ${CALLS_PER_SEQUENCE}),
               1 + (g % ${CALLS_PER_SEQUENCE}), 1, ${scheduledExpr}, '${resultType}', now(), now()
        from generate_series(${offset}, ${offset + size - 1}) g`));
    }
  };
  await insertBlock("sched", SCHEDULED, "Scheduled", "now() + interval '10 minutes' + random() * interval '30 days'");
  await insertBlock("done", FINISHED, "Goal Completed", "now() - random() * interval '30 days'");
  await db.execute(sql`analyze calls`);
  await db.execute(sql`analyze sequences`);
}

async function timeQuery(db: Db, iterations: number, dueBefore: () => Date): Promise<number[]> {
  const samples: number[] = [];
  for (let index = 0; index < iterations; index += 1) {
    const start = performance.now();
    await findDueCalls(db, { dueBefore: dueBefore(), limit: BATCH });
    samples.push(performance.now() - start);
  }
  return samples.sort((a, b) => a - b);
}

function summary(samples: number[]) {
  return `p50 ${ms(percentile(samples, 50))}, p90 ${ms(percentile(samples, 90))}, p99 ${ms(percentile(samples, 99))} (n=${samples.length})`;
}

async function explain(db: Db, dueBefore: Date): Promise<string> {
  const rows = (await db.execute(sql`explain (analyze, buffers, costs off) ${dueCallsSql(dueBefore, BATCH)}`)) as unknown as Array<Record<string, string>>;
  return rows.map((row) => `    ${Object.values(row)[0]}`).join("\n");
}

async function dispatchUnderLoad(db: Db, organizationId: string, agentId: string) {
  const total = RATE * SECONDS;
  const startAt = Date.now() + 2000;
  const steps = JSON.stringify([
    { stepType: "CALL", delaySeconds: 0, delaySecondsMax: null, executionWindowConfig: { dayOffset: 0, timeWindow: { startTime: 0, endTime: 1440 }, timezoneSource: "contact" } },
  ]);
  await db.execute(sql.raw(`
    insert into sequences (id, organization_id, agent_id, name, phone_number, timezone, scheduled_by, steps, created_at, updated_at)
    select 'call-sequence.stream' || g, '${organizationId}', '${agentId}', 'Stream ' || g, '+1303' || lpad(g::text, 7, '0'),
           'America/New_York', 'api', '${steps}'::jsonb, now(), now()
    from generate_series(0, ${total - 1}) g`));
  await db.execute(sql.raw(`
    insert into calls (id, organization_id, agent_id, sequence_id, step_number, attempt, scheduled_at, result_type, created_at, updated_at)
    select 'call.stream' || g, '${organizationId}', '${agentId}', 'call-sequence.stream' || g, 1, 1,
           to_timestamp(${startAt / 1000} + g::double precision / ${RATE}), 'Scheduled', now(), now()
    from generate_series(0, ${total - 1}) g`));

  let dials = 0;
  const engine: VoiceEngine = {
    kind: "bench",
    maxCallWallSeconds: 60,
    async placeCall(request) {
      dials += 1;
      return { providerCallId: `bench-${request.callId}`, alreadyPlaced: false };
    },
    callState: async () => ({ state: "active" }),
  };
  const lags: number[] = [];
  const queryTimes: number[] = [];
  // A pipelined dispatcher: a poller finds due calls every POLL_MS and queues them; DIAL_CONCURRENCY workers dial
  // continuously, so a slow dial never delays the next poll.
  const queued = new Set<string>();
  const queue: Array<{ callId: string; scheduledAt: Date }> = [];
  const deadline = startAt + SECONDS * 1000 + 10_000;
  let polling = true;
  const poller = (async () => {
    while (polling && Date.now() < deadline) {
      const tick = Date.now();
      const queryStart = performance.now();
      const due = await findDueCalls(db, { dueBefore: new Date(), limit: 500 });
      queryTimes.push(performance.now() - queryStart);
      for (const call of due) {
        if (queued.has(call.callId)) continue;
        queued.add(call.callId);
        queue.push(call);
      }
      const wait = POLL_MS - (Date.now() - tick);
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    }
  })();
  await Promise.all(
    Array.from({ length: DIAL_CONCURRENCY }, async () => {
      while (Date.now() < deadline && lags.length < total) {
        const call = queue.shift();
        if (!call) {
          await new Promise((resolve) => setTimeout(resolve, 5));
          continue;
        }
        const now = new Date();
        const outcome = await dialDueCall(db, { callId: call.callId, now, voiceEngine: engine });
        if (outcome.status === "dialed") lags.push(now.getTime() - call.scheduledAt.getTime());
      }
    }),
  );
  polling = false;
  await poller;
  const [row] = (await db.execute(sql`select count(*)::int as n from ${calls} where id like 'call.stream%' and result_type = 'Calling'`)) as unknown as Array<{ n: number }>;
  return { total, dialed: row?.n ?? 0, dials, lags: lags.sort((a, b) => a - b), queryTimes: queryTimes.sort((a, b) => a - b) };
}

async function main() {
  const database = await startBenchDatabase();
  const handle = createDb(database.url, { max: 12 });
  const db = handle.db;
  try {
    const organization = await createOrganization(db, { name: "Bench org", monthlyCreditAllocation: 1_000_000 });
    const agent = await createAgent(db, { organizationId: organization.id, name: "Bench agent" });
    console.log(`Machine: ${os.cpus().length} CPU(s), load average ${os.loadavg().map((value) => value.toFixed(1)).join(" / ")}`);
    console.log(`Filling: ${SCHEDULED.toLocaleString("en-US")} scheduled + ${FINISHED.toLocaleString("en-US")} finished calls…`);
    const fillStart = performance.now();
    await fill(db, organization.id, agent.id);
    console.log(`  filled in ${((performance.now() - fillStart) / 1000).toFixed(1)} s`);

    // 1. The due-batch query. "Nothing due yet" (the common poll) and "a full batch due" (after downtime).
    const horizon = Date.now() + 10 * 60_000;
    await timeQuery(db, 50, () => new Date());
    const empty = await timeQuery(db, 1000, () => new Date());
    const full = await timeQuery(db, 1000, () => new Date(horizon + Math.random() * 29 * 86_400_000));
    console.log("\n1. Due-batch query (limit 100) with calls_due_idx (partial btree on scheduled_at where result_type = 'Scheduled'):");
    console.log(`   nothing due:  ${summary(empty)}`);
    console.log(`   batch due:    ${summary(full)}`);
    console.log("   plan (batch due):");
    console.log(await explain(db, new Date(horizon + 86_400_000)));

    await db.execute(sql`drop index calls_due_idx`);
    await db.execute(sql`analyze calls`);
    const noIndex = await timeQuery(db, 20, () => new Date(horizon + Math.random() * 29 * 86_400_000));
    console.log("\n   baseline without calls_due_idx (same query, same data):");
    console.log(`   batch due:    ${summary(noIndex)}`);
    console.log(await explain(db, new Date(horizon + 86_400_000)));
    await db.execute(sql`create index calls_due_idx on calls (scheduled_at) where result_type = 'Scheduled'`);
    await db.execute(sql`analyze calls`);
    console.log(`   → with the index the batch query is ${(percentile(noIndex, 50) / percentile(full, 50)).toFixed(0)}× faster at p50`);

    // 2. Dispatch lag under load.
    console.log(`\n2. Dispatch under load: ${RATE} calls/s fall due for ${SECONDS} s; poll every ${POLL_MS} ms; ${DIAL_CONCURRENCY} dial workers (dialDueCall)`);
    const result = await dispatchUnderLoad(db, organization.id, agent.id);
    console.log(`   dialed ${result.dialed}/${result.total} (voice engine saw ${result.dials} dials; each call at most once)`);
    console.log(`   lag p50 ${ms(percentile(result.lags, 50))}, p90 ${ms(percentile(result.lags, 90))}, p99 ${ms(percentile(result.lags, 99))}, max ${ms(result.lags.at(-1) ?? NaN)}`);
    console.log(`   due query during dispatch: ${summary(result.queryTimes)}`);

    console.log(`   load average now: ${os.loadavg().map((value) => value.toFixed(1)).join(" / ")}`);
    const queryOk = percentile(full, 99) <= 5;
    const lagOk = percentile(result.lags, 99) <= 1000;
    console.log(`\nGoals: batch query ≤ 5 ms → p99 ${ms(percentile(full, 99))} ${queryOk ? "MET" : "MISSED"}; dispatch lag p99 ≤ 1 s → ${ms(percentile(result.lags, 99))} ${lagOk ? "MET" : "MISSED"}`);
  } finally {
    await handle.close();
    await database.stop();
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
