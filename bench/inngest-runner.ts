/**
 * Embedded Inngest runner benchmark: `npx tsx bench/inngest-runner.ts [--runs N] [--steps N] [--concurrency N]`.
 *
 * Starts its own embedded Postgres in a temp dir, runs a function of sequential `step.run`s through the runner
 * (the real serve handler, in-process) and, in the same run, the same step bodies called directly. Prints
 * steps/s through the runner and the per-step overhead as a ratio to the direct call. Stops by itself.
 */
import { mkdtempSync, rmSync } from "node:fs";
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

const RUNS = flag("runs", 20);
const STEPS = flag("steps", 10);
const CONCURRENCY = flag("concurrency", 8);

async function main() {
  const dir = mkdtempSync(path.join(os.tmpdir(), "inngest-bench-"));
  const pg = await startEmbeddedPostgres(dir);
  const handle = createDb(pg.url, { max: 20 });
  try {
    await runMigrations(pg.url);
    const db = handle.db;
    // The step body: one small query, like a real step calling a service.
    const stepBody = async (index: number) => {
      const [row] = await db.execute<{ value: number }>(sql`select ${index}::int as value`);
      return row!.value;
    };
    const benchFunction = inngest.createFunction({ id: "bench-steps", triggers: [{ event: "bench/start" }], retries: 0 }, async ({ step }) => {
      let total = 0;
      for (let index = 0; index < STEPS; index++) total += await step.run(`step-${index}`, () => stepBody(index));
      return total;
    });

    // Baseline: the same step bodies, called directly, same parallelism.
    const directStart = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async (_, worker) => {
        for (let run = worker; run < RUNS; run += CONCURRENCY) for (let index = 0; index < STEPS; index++) await stepBody(index);
      }),
    );
    const directMs = performance.now() - directStart;

    const serveHandler = createInngestHandler({ client: inngest, functions: [benchFunction], mode: "embedded" });
    let handlerMs = 0;
    const handler = async (request: Request) => {
      const started = performance.now();
      try {
        return await serveHandler(request);
      } finally {
        handlerMs += performance.now() - started;
      }
    };
    const runner = new EmbeddedRunner({ db, handler, concurrency: CONCURRENCY, partition: "bench", logger: console });
    await runner.start();
    // Warm up the SDK and the queries once.
    await inngest.send({ name: "bench/start", data: {} });
    await runner.drain();

    await inngest.send(Array.from({ length: RUNS }, (_, run) => ({ name: "bench/start", data: { run } })));
    handlerMs = 0;
    const runnerStart = performance.now();
    const jobs = await runner.drain();
    const runnerMs = performance.now() - runnerStart;
    await runner.stop();

    const [{ completed }] = (await db.execute<{ completed: number }>(
      sql`select count(*)::int as completed from inngest_runs where partition = 'bench' and status = 'completed'`,
    )) as unknown as [{ completed: number }];
    const totalSteps = RUNS * STEPS;
    const runnerPerStep = runnerMs / totalSteps;
    const directPerStep = directMs / totalSteps;
    const lines = [
      `embedded Inngest runner: ${RUNS} runs x ${STEPS} steps, runner concurrency ${CONCURRENCY} (${completed - 1}/${RUNS} runs completed, ${jobs} requests)`,
      `  through the runner: ${runnerMs.toFixed(0)} ms, ${(totalSteps / (runnerMs / 1000)).toFixed(0)} steps/s, ${runnerPerStep.toFixed(2)} ms per step`,
      `  direct calls:       ${directMs.toFixed(0)} ms, ${(totalSteps / (directMs / 1000)).toFixed(0)} steps/s, ${directPerStep.toFixed(3)} ms per step`,
      `  in the serve handler (SDK + step body), summed over concurrent requests: ${(handlerMs / totalSteps).toFixed(2)} ms per step`,
      `  overhead per step:  ${(runnerPerStep - directPerStep).toFixed(2)} ms; runner/direct time per step = ${(runnerPerStep / directPerStep).toFixed(1)}x`,
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
