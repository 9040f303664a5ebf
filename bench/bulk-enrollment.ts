/**
 * Bulk enrollment benchmark: `npx tsx bench/bulk-enrollment.ts [--runs N] [--contacts N] [--chunk N] [--per-step N]`.
 *
 * `--chunk` contacts per transaction, `--per-step` transactions per Inngest step (defaults: the app's).
 * Starts its own embedded Postgres in a temp dir (db/embedded.ts + db/migrate.ts) and, in the same run:
 * 1. baseline: a raw multi-row insert (postgres.js, one transaction) of the same rows — N sequences and their N first
 *    call records — into the same tables;
 * 2. a bulk request of N contacts through the real `/api/v1` handler (in-process fetch handler, API key, rate
 *    limiter, tRPC, validation, credits, opt-outs, the durable batch row): time to the 202;
 * 3. end to end on the embedded Inngest runner (polling, the real serve handler): time from the request until all N
 *    sequences and their first calls exist, and the materialization rate after the 202.
 * Prints medians, p90s and both ratios against the goals of DESIGN §10. Stops by itself.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { eq, sql } from "drizzle-orm";
import { createDb, type Db } from "@/db";
import { startEmbeddedPostgres } from "@/db/embedded";
import { runMigrations } from "@/db/migrate";
import { bulkBatches, calls, sequences } from "@/db/schema";
import { inngestRuns } from "@/db/schema/jobs";
import { inngest } from "@/inngest/client";
import { createEmbeddedRunner } from "@/inngest/embedded";
import { createMaterializeBulkBatchFunction, DEFAULT_CHUNKS_PER_STEP } from "@/inngest/functions/materialize-bulk-batch";
import { handleApiV1 } from "@/server/http/api-v1";
import { newId } from "@/server/ids";
import { createAgent } from "@/server/services/agents/create-agent";
import { createApiKey } from "@/server/services/api-keys/manage-api-keys";
import { validateContact } from "@/server/services/enrollment/contact";
import { DEFAULT_CHUNK_SIZE, materializeBulkBatch } from "@/server/services/enrollment/materialize-bulk-batch";
import { createOrganization } from "@/server/services/organizations/create-organization";

function flag(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? Number(process.argv[index + 1]) : fallback;
}

const RUNS = flag("runs", 15);
const CONTACTS = flag("contacts", 1000);
const CHUNK = flag("chunk", DEFAULT_CHUNK_SIZE);
const PER_STEP = flag("per-step", DEFAULT_CHUNKS_PER_STEP);
const WARMUP = 3;

const STEPS = [
  {
    stepType: "CALL" as const,
    delaySeconds: 0,
    delaySecondsMax: null,
    executionWindowConfig: { dayOffset: 0, timeWindow: { startTime: 540, endTime: 1020 }, timezoneSource: "contact" as const },
  },
  {
    stepType: "CALL" as const,
    delaySeconds: 86_400,
    delaySecondsMax: 3600,
    executionWindowConfig: { dayOffset: 1, timeWindow: { startTime: 540, endTime: 1020 }, timezoneSource: "contact" as const },
  },
];

const AREA_CODES = ["212", "415", "303", "312", "617", "702", "206", "305"];

/** Contacts as an integrator sends them: formatted numbers, a required variable, no timezone (inferred). */
function contacts(run: number) {
  return Array.from({ length: CONTACTS }, (_, i) => ({
    name: `Contact ${run}-${i}`,
    phoneNumber: `+1 (${AREA_CODES[i % AREA_CODES.length]}) 555-${String((run * CONTACTS + i) % 10_000).padStart(4, "0")}`,
    company_name: `Company ${i % 97}`,
    crm_ref: `ref-${run}-${i}`,
  }));
}

const median = (values: number[]) => percentile(values, 50);
function percentile(values: number[], p: number) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}
const ms = (value: number) => `${value.toFixed(1)} ms`;

async function setup(db: Db) {
  const organization = await createOrganization(db, { name: "Bench", monthlyCreditAllocation: 100_000_000 });
  const agent = await createAgent(db, {
    organizationId: organization.id,
    name: "Bench agent",
    timezones: ["America/New_York"],
    steps: STEPS,
    inputVariables: [{ slug: "company_name", required: true }, { slug: "crm_ref" }],
  });
  return { organization, agent };
}

/** The baseline: the same N sequence rows and N first-call rows, one multi-row insert each, in one transaction. */
async function rawInsert(handle: ReturnType<typeof createDb>, organizationId: string, agentId: string, run: number) {
  // drizzle's postgres.js client passes json and timestamps through as text: serialize them the way drizzle does.
  const now = new Date().toISOString();
  const sequenceRows = contacts(run).map((contact, i) => ({
    id: newId("call-sequence"),
    organization_id: organizationId,
    agent_id: agentId,
    name: contact.name,
    phone_number: `+1${AREA_CODES[i % AREA_CODES.length]}555${String((run * CONTACTS + i) % 10_000).padStart(4, "0")}`,
    timezone: "America/New_York",
    custom_input_variables: JSON.stringify({ company_name: contact.company_name, crm_ref: contact.crm_ref }),
    scheduled_by: "api",
    steps: JSON.stringify(STEPS),
    created_at: now,
    updated_at: now,
  }));
  const callRows = sequenceRows.map((row) => ({
    id: newId("call"),
    organization_id: organizationId,
    agent_id: agentId,
    sequence_id: row.id,
    step_number: 1,
    scheduled_at: now,
    result_type: "Scheduled",
    created_at: now,
    updated_at: now,
  }));
  const started = performance.now();
  await handle.sql.begin(async (tx) => {
    await tx`insert into sequences ${tx(sequenceRows)}`;
    await tx`insert into calls ${tx(callRows)}`;
  });
  return performance.now() - started;
}

async function countSequences(db: Db, batchId: string) {
  const [row] = await db.select({ value: sql<number>`count(*)::int` }).from(sequences).where(eq(sequences.batchId, batchId));
  return row?.value ?? 0;
}

/** Until the batch's materialize run (creation and announcements) has completed. */
async function waitForRun(db: Db, batchId: string) {
  for (;;) {
    const [run] = await db
      .select({ status: inngestRuns.status })
      .from(inngestRuns)
      .where(sql`${inngestRuns.event}->'data'->>'batchId' = ${batchId}`);
    if (run?.status === "completed") return;
    if (run?.status === "failed" || run?.status === "cancelled") throw new Error(`materialize run ${run.status}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function main() {
  const dir = mkdtempSync(path.join(os.tmpdir(), "ocs-bench-bulk-"));
  const pg = await startEmbeddedPostgres(dir);
  const handle = createDb(pg.url, { max: 20 });
  const db = handle.db;
  const materialize = createMaterializeBulkBatchFunction(inngest, { getDb: () => db, now: () => new Date(), chunkSize: CHUNK, chunksPerStep: PER_STEP });
  const runner = createEmbeddedRunner({ db, functions: [materialize], autoPoll: true, pollIntervalMs: 20, concurrency: 4, logger: { info: () => {}, warn: console.warn, error: console.error } });
  try {
    await runMigrations(pg.url);
    const { organization, agent } = await setup(db);
    await runner.start();

    const post = async (run: number) => {
      // A fresh key per request keeps the 10 requests/s limit out of the measurement.
      const { key } = await createApiKey(db, { organizationId: organization.id, name: `bench-${run}` });
      const body = JSON.stringify({ contacts: contacts(run) });
      const started = performance.now();
      const response = await handleApiV1(
        new Request(`http://localhost/api/v1/agents/${agent.id}/schedule/sequences`, {
          method: "POST",
          headers: { "x-api-key": key, "content-type": "application/json" },
          body,
        }),
        { db },
      );
      const result = (await response.json()) as { batchId: string; accepted: number };
      const acceptedMs = performance.now() - started;
      if (response.status !== 202 || result.accepted !== CONTACTS) throw new Error(`unexpected ${response.status}: ${JSON.stringify(result).slice(0, 300)}`);
      return { started, acceptedMs, batchId: result.batchId };
    };

    // Warm-up: JIT, prepared statements, the timezone table, the runner's registration.
    for (let run = 0; run < WARMUP; run += 1) {
      await rawInsert(handle, organization.id, agent.id, 1000 + run);
      const { batchId } = await post(1000 + run);
      await waitForRun(db, batchId);
    }

    const raw: number[] = [];
    const accepted: number[] = [];
    const endToEnd: number[] = [];
    const materializedRate: number[] = [];
    const validation: number[] = [];
    const direct: number[] = [];
    for (let run = 0; run < RUNS; run += 1) {
      raw.push(await rawInsert(handle, organization.id, agent.id, run));

      const request = await post(run);
      accepted.push(request.acceptedMs);
      // created_count is written in the same transaction as each chunk's sequences and calls: a cheap primary-key
      // read every 5 ms (counting rows that often would load the 2 cores the materialization runs on).
      for (;;) {
        const [batch] = await db.select({ created: bulkBatches.createdCount }).from(bulkBatches).where(eq(bulkBatches.id, request.batchId));
        if ((batch?.created ?? 0) >= CONTACTS) break;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      // Everything exists from the commit that brought created_count to N: the checks below are not part of it.
      const total = performance.now() - request.started;
      if ((await countSequences(db, request.batchId)) !== CONTACTS) throw new Error("created_count and the sequences disagree");
      const [callCount] = await db
        .select({ value: sql<number>`count(*)::int` })
        .from(calls)
        .innerJoin(sequences, eq(sequences.id, calls.sequenceId))
        .where(eq(sequences.batchId, request.batchId));
      if (callCount?.value !== CONTACTS) throw new Error(`expected ${CONTACTS} first calls, found ${callCount?.value}`);
      endToEnd.push(total);
      materializedRate.push(CONTACTS / ((total - request.acceptedMs) / 1000));

      // Breakdown: the pure per-contact validation of the same request, and the materialization without Inngest.
      const rules = {
        steps: STEPS,
        requiredVariables: ["company_name"],
        emailRequired: false,
        agentTimezone: "America/New_York",
        defaultTimezone: null,
        groupByField: null,
        titleCaseFields: new Set<string>(),
        now: new Date(),
      };
      const list = contacts(500 + run);
      const validationStart = performance.now();
      for (let i = 0; i < list.length; i += 1) await validateContact(list[i]!, i, rules);
      validation.push(performance.now() - validationStart);
      // The run announces the sequences after creating them: let it finish, so runs never overlap, then time the
      // service alone on the same batch, recreated from scratch.
      await waitForRun(db, request.batchId);
      await db.execute(sql`delete from sequences where batch_id = ${request.batchId}`);
      await db.update(bulkBatches).set({ createdCount: 0, status: "accepted", completedAt: null }).where(eq(bulkBatches.id, request.batchId));
      const directStart = performance.now();
      await materializeBulkBatch(db, { batchId: request.batchId, chunkSize: CHUNK });
      direct.push(performance.now() - directStart);
    }

    const rawMedian = median(raw);
    const acceptedMedian = median(accepted);
    const rateMedian = median(materializedRate);
    const directRate = CONTACTS / (median(direct) / 1000);
    console.log(`Bulk enrollment, ${CONTACTS} contacts, ${RUNS} runs (+${WARMUP} warm-up), transactions of ${CHUNK}, ${PER_STEP} per step, PostgreSQL on ${os.cpus().length} cores`);
    console.log(`  baseline raw multi-row insert (sequences + calls):  median ${ms(rawMedian)}  p90 ${ms(percentile(raw, 90))}`);
    console.log(`  POST /schedule/sequences → 202:                      median ${ms(acceptedMedian)}  p90 ${ms(percentile(accepted, 90))}`);
    console.log(`    of which per-contact validation (in-process):     median ${ms(median(validation))}`);
    console.log(`  request → all ${CONTACTS} sequences + calls exist (Inngest): median ${ms(median(endToEnd))}  p90 ${ms(percentile(endToEnd, 90))}`);
    console.log(`  materialization without Inngest (service only):     median ${ms(median(direct))} (${Math.round(directRate)} sequences/s)`);
    console.log("");
    console.log(`  ratio 202 / raw insert:            ${(acceptedMedian / rawMedian).toFixed(2)}×   (goal ≤ 3×; p50 goal ≤ 150 ms: ${acceptedMedian <= 150 ? "met" : "missed"})`);
    console.log(`  materialized after the 202:        ${Math.round(rateMedian)} sequences/s   (goal ≥ 5,000/s: ${rateMedian >= 5000 ? "met" : "missed"})`);
    console.log(`  ratio materialization / raw insert: ${((median(endToEnd) - acceptedMedian) / rawMedian).toFixed(2)}×`);
  } finally {
    await runner.stop().catch(() => {});
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
