/**
 * Embedded Inngest runner benchmark:
 *   npx tsx bench/inngest-runner.ts [--runs N] [--steps N] [--concurrency N] [--events N] [--checkpointing 0|1]
 *     [--profile <file.cpuprofile>]   (a CPU profile of the steps phase only, for Chrome DevTools / speedscope)
 *
 * Starts its own embedded Postgres in a temp dir and measures, each with a baseline taken in the same run:
 * 1. Steps: a function of sequential `step.run`s (each one small query) through the runner — the real serve handler,
 *    in-process — against the same step bodies called directly with the same parallelism. Prints steps/s and the
 *    overhead per step (goals: ≤ 1.5 ms, ≥ 500 steps/s).
 * 2. Sending events: one `inngest.send()` of 1,000 events, and 1,000 events through one `step.sendEvent` with an
 *    array, each event starting a run, against one raw multi-row insert of the same events (goal: ≤ 200 ms).
 * 3. Short runs: how fast the runner works through the 1,000 one-step runs one send started.
 * Prints the machine's load average too (a shared machine's figures move with it). Stops by itself.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import os from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import { createDb } from "@/db";
import { startEmbeddedPostgres } from "@/db/embedded";
import { runMigrations } from "@/db/migrate";
import { inngest } from "@/inngest/client";
import { EmbeddedRunner } from "@/inngest/embedded";
import { createInngestHandler } from "@/inngest/serve";

function flag(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? Number(process.argv[index + 1]) : fallback;
}

const RUNS = flag("runs", 40);
const STEPS = flag("steps", 10);
const CONCURRENCY = flag("concurrency", 8);
const EVENTS = flag("events", 1000);
const CHECKPOINTING = flag("checkpointing", 1) !== 0;
const REPEATS = 3;
const PROFILE = process.argv.includes("--profile") ? process.argv[process.argv.indexOf("--profile") + 1] : undefined;

const GOALS = { overheadMs: 1.5, stepsPerSecond: 500, sendMs: 200 };

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const load = () =>
  os
    .loadavg()
    .map((value) => value.toFixed(2))
    .join(" ");
const verdict = (met: boolean) => (met ? "met" : "NOT met");

async function main() {
  const dir = mkdtempSync(path.join(os.tmpdir(), "inngest-bench-"));
  const pg = await startEmbeddedPostgres(dir);
  const handle = createDb(pg.url, { max: 20 });
  const loadBefore = load();
  try {
    await runMigrations(pg.url);
    const db = handle.db;
    // The step body: one small query, like a real step calling a service.
    const stepBody = async (index: number) => {
      const [row] = await db.execute<{ value: number }>(sql`select ${index}::int as value`);
      return row!.value;
    };
    const stepsFunction = inngest.createFunction({ id: "bench-steps", triggers: [{ event: "bench/start" }], retries: 0 }, async ({ step }) => {
      let total = 0;
      for (let index = 0; index < STEPS; index++) total += await step.run(`step-${index}`, () => stepBody(index));
      return total;
    });
    const itemFunction = inngest.createFunction({ id: "bench-item", triggers: [{ event: "bench/item" }], retries: 0 }, async ({ event, step }) => {
      return step.run("handle", () => stepBody((event.data as { n: number }).n));
    });
    /** Start times of the fan-out runs, kept outside the step (the measurement must not go through the step's memo). */
    const fanOutStartedAt = new Map<number, number>();
    const fanOutFunction = inngest.createFunction({ id: "bench-fan-out", triggers: [{ event: "bench/fan-out" }], retries: 0 }, async ({ event, step }) => {
      const { round } = event.data as { round: number };
      await step.run("before", () => void fanOutStartedAt.set(round, performance.now()));
      await step.sendEvent(
        "fan-out",
        Array.from({ length: EVENTS }, (_, n) => ({ name: "bench/item", data: { n, round, via: "step.sendEvent" } })),
      );
      // Measured in the same request right after the send (the step above ran in it too).
      return step.run("after", () => performance.now() - fanOutStartedAt.get(round)!);
    });

    const serveHandler = createInngestHandler({ client: inngest, functions: [stepsFunction, itemFunction, fanOutFunction], mode: "embedded" });
    let handlerMs = 0;
    const handler = async (request: Request) => {
      const started = performance.now();
      try {
        return await serveHandler(request);
      } finally {
        handlerMs += performance.now() - started;
      }
    };
    const runner = new EmbeddedRunner({ db, handler, concurrency: CONCURRENCY, partition: "bench", logger: console, checkpointing: CHECKPOINTING });
    await runner.start();

    // Warm up the SDK, the queries and the baselines once.
    await inngest.send([{ name: "bench/start", data: {} }, ...Array.from({ length: 10 }, (_, n) => ({ name: "bench/item", data: { n } }))]);
    await runner.drain({ maxJobs: 1e9 });
    await db.execute(sql`create table bench_raw_events (id text, name text, payload jsonb, received_at timestamptz)`);

    // 1. Steps. Baseline: the same step bodies, called directly, same parallelism.
    const directStart = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async (_, worker) => {
        for (let run = worker; run < RUNS; run += CONCURRENCY) for (let index = 0; index < STEPS; index++) await stepBody(index);
      }),
    );
    const directMs = performance.now() - directStart;
    await inngest.send(Array.from({ length: RUNS }, (_, run) => ({ name: "bench/start", data: { run } })));
    handlerMs = 0;
    const profiler = PROFILE ? new Session() : undefined;
    if (profiler) {
      profiler.connect();
      await profiler.post("Profiler.enable");
      await profiler.post("Profiler.setSamplingInterval", { interval: 250 });
      await profiler.post("Profiler.start");
    }
    const stepsCpu0 = process.cpuUsage();
    const runnerStart = performance.now();
    const units = await runner.drain({ maxJobs: 1e9 });
    const runnerMs = performance.now() - runnerStart;
    const stepsCpu = process.cpuUsage(stepsCpu0);
    if (profiler) {
      const { profile } = await profiler.post("Profiler.stop");
      writeFileSync(PROFILE!, JSON.stringify(profile));
      profiler.disconnect();
    }
    const stepsHandlerMs = handlerMs;
    const totalSteps = RUNS * STEPS;
    const runnerPerStep = runnerMs / totalSteps;
    const directPerStep = directMs / totalSteps;
    const overhead = runnerPerStep - directPerStep;
    const stepsPerSecond = totalSteps / (runnerMs / 1000);

    // 2. Sending EVENTS events, REPEATS times each way; each event starts a run of bench-item.
    const events = (round: number) => Array.from({ length: EVENTS }, (_, n) => ({ name: "bench/item", data: { n, round, via: "inngest.send" } }));
    const rawMs: number[] = [];
    const sendMs: number[] = [];
    const stepSendMs: number[] = [];
    const drainMs: number[] = [];
    for (let round = 0; round < REPEATS; round++) {
      const rows = events(round).map((event, n) => ({ id: `raw-${round}-${n}`, name: event.name, payload: event }));
      const rawStart = performance.now();
      await db.execute(sql`
        insert into bench_raw_events (id, name, payload, received_at)
        select id, name, payload, now() from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as x(id text, name text, payload jsonb)`);
      rawMs.push(performance.now() - rawStart);

      const sendStart = performance.now();
      await inngest.send(events(round));
      sendMs.push(performance.now() - sendStart);

      const drainStart = performance.now();
      await runner.drain({ maxJobs: 1e9 });
      drainMs.push(performance.now() - drainStart);

      // The fan-out run alone (nothing else pending), then the runs its events started.
      await inngest.send({ name: "bench/fan-out", data: { round } });
      await runner.drain({ maxJobs: 1e9 });
    }
    const fanOuts = await db.execute<{ output: number }>(
      sql`select output from inngest_runs where partition = 'bench' and function_id = 'outbound-calling-bench-fan-out' and status = 'completed'`,
    );
    for (const row of fanOuts as unknown as Array<{ output: number }>) stepSendMs.push(Number(row.output));
    await runner.stop();

    const [{ completed, total }] = (await db.execute(
      sql`select count(*) filter (where status = 'completed')::int as completed, count(*)::int as total from inngest_runs where partition = 'bench'`,
    )) as unknown as [{ completed: number; total: number }];
    const lines = [
      `embedded Inngest runner bench (checkpointing ${CHECKPOINTING ? "on" : "off"}, runner concurrency ${CONCURRENCY}; load average ${loadBefore} before, ${load()} after)`,
      `1. steps: ${RUNS} runs x ${STEPS} sequential steps (${units} units of work: requests, timers, checkpointed steps)`,
      `   through the runner: ${runnerMs.toFixed(0)} ms, ${stepsPerSecond.toFixed(0)} steps/s, ${runnerPerStep.toFixed(2)} ms per step`,
      `   direct calls:       ${directMs.toFixed(0)} ms, ${(totalSteps / (directMs / 1000)).toFixed(0)} steps/s, ${directPerStep.toFixed(3)} ms per step`,
      `   in the serve handler (SDK + step bodies + checkpoints), summed over concurrent requests: ${(stepsHandlerMs / totalSteps).toFixed(2)} ms per step; ` +
        `CPU of this process (runner, SDK, driver): ${((stepsCpu.user + stepsCpu.system) / 1000 / totalSteps).toFixed(2)} ms per step`,
      `   overhead per step: ${overhead.toFixed(2)} ms (goal <= ${GOALS.overheadMs}: ${verdict(overhead <= GOALS.overheadMs)}); ` +
        `${stepsPerSecond.toFixed(0)} steps/s (goal >= ${GOALS.stepsPerSecond}: ${verdict(stepsPerSecond >= GOALS.stepsPerSecond)}); ` +
        `runner/direct time per step = ${(runnerPerStep / directPerStep).toFixed(1)}x`,
      `2. sending ${EVENTS} events, each starting a run (median of ${REPEATS}; min-max)`,
      `   raw multi-row insert (baseline): ${median(rawMs).toFixed(1)} ms (${Math.min(...rawMs).toFixed(1)}-${Math.max(...rawMs).toFixed(1)})`,
      `   inngest.send([...${EVENTS}]):    ${median(sendMs).toFixed(1)} ms (${Math.min(...sendMs).toFixed(1)}-${Math.max(...sendMs).toFixed(1)}), ` +
        `${(median(sendMs) / median(rawMs)).toFixed(1)}x the raw insert (goal <= ${GOALS.sendMs} ms: ${verdict(median(sendMs) <= GOALS.sendMs)})`,
      `   step.sendEvent([...${EVENTS}]):  ${median(stepSendMs).toFixed(1)} ms (${Math.min(...stepSendMs).toFixed(1)}-${Math.max(...stepSendMs).toFixed(1)}), ` +
        `${(median(stepSendMs) / median(rawMs)).toFixed(1)}x the raw insert (goal <= ${GOALS.sendMs} ms: ${verdict(median(stepSendMs) <= GOALS.sendMs)})`,
      `3. short runs: the ${EVENTS} one-step runs one send started, drained in ${median(drainMs).toFixed(0)} ms (median of ${REPEATS}), ${(EVENTS / (median(drainMs) / 1000)).toFixed(0)} runs/s`,
      `   (${completed}/${total} runs of the bench completed)`,
    ];
    console.log(lines.join("\n"));
  } finally {
    await handle.close();
    await pg.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
