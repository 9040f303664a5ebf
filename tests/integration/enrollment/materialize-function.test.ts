import { and, eq, inArray, sql } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { bulkBatches, calls, sequences } from "@/db/schema";
import { inngestEvents, inngestRuns, inngestSteps } from "@/db/schema/jobs";
import { inngest } from "@/inngest/client";
import { finishRun } from "@/inngest/embedded/intake";
import { lockRun, transaction } from "@/inngest/embedded/state";
import {
  createMaterializeBulkBatchFunction,
  createResumeBulkBatchesFunction,
  type EnrollmentFunctionDependencies,
} from "@/inngest/functions/materialize-bulk-batch";
import { DEFAULT_CHUNK_SIZE } from "@/server/services/enrollment/materialize-bulk-batch";
import { useTestDb } from "../../helpers/db";
import { createTestClock, startTestInngest, type TestInngest } from "../../helpers/inngest";
import { patientApiClient, setupEnrollment } from "./helpers";

const db = useTestDb();
const MINUTE = 60_000;

let current: TestInngest | null = null;
afterEach(async () => {
  await current?.stop();
  current = null;
});

async function startRunner(chunkSize: number, concurrency = 4) {
  const clock = createTestClock(new Date("2031-05-05T15:00:00Z"));
  const deps: EnrollmentFunctionDependencies = { getDb: () => db, now: clock.now, chunkSize };
  current = await startTestInngest({
    db,
    clock,
    functions: [createMaterializeBulkBatchFunction(inngest, deps), createResumeBulkBatchesFunction(inngest, deps)],
    concurrency,
  });
  return { runner: current, clock, api: patientApiClient(db, { now: clock.now }) };
}

const person = (i: number, extra: Record<string, unknown> = {}) => ({
  name: `Bulk ${i}`,
  phoneNumber: `+1720555${String(i).padStart(4, "0")}`,
  company_name: "Initech",
  ...extra,
});

/** Executes one job (the runner has concurrency 1): drain stops with an error once it ran more than maxJobs. */
async function runOneJob(runner: TestInngest) {
  await runner.runner.drain({ maxJobs: 0 }).catch((error: Error) => {
    if (!error.message.includes("executed more than 0 jobs")) throw error;
  });
}

async function materializeRuns(batchId: string) {
  const runs = await db.select().from(inngestRuns).where(eq(inngestRuns.functionId, "outbound-calling-materialize-bulk-batch"));
  return runs.filter((run) => (run.event.data as { batchId?: string }).batchId === batchId);
}

async function sequencesOf(batchId: string) {
  return db.select().from(sequences).where(eq(sequences.batchId, batchId)).orderBy(sequences.batchIndex);
}

async function startedEventsFor(sequenceIds: string[]) {
  const rows = await db
    .select({ sequenceId: sql<string>`${inngestEvents.payload}->'data'->>'sequenceId'` })
    .from(inngestEvents)
    .where(and(eq(inngestEvents.name, "sequence/started"), inArray(sql`${inngestEvents.payload}->'data'->>'sequenceId'`, sequenceIds)));
  return rows.map((row) => row.sequenceId);
}

async function expectBatchComplete(batchId: string, accepted: number) {
  const rows = await sequencesOf(batchId);
  expect(rows.map((row) => row.batchIndex)).toEqual(Array.from({ length: accepted }, (_, i) => i));
  const firstCalls = await db.select().from(calls).where(inArray(calls.sequenceId, rows.map((row) => row.id)));
  expect(firstCalls).toHaveLength(accepted);
  expect(new Set(firstCalls.map((call) => call.sequenceId)).size).toBe(accepted);
  const [batch] = await db.select().from(bulkBatches).where(eq(bulkBatches.id, batchId));
  expect(batch).toMatchObject({ status: "completed", createdCount: accepted });
  return rows;
}

describe("materialize-bulk-batch on the embedded Inngest runner", () => {
  it("creates every accepted contact's sequence after the 202 and announces each one once", async () => {
    const { runner, api } = await startRunner(40);
    const { apiKey, agent } = await setupEnrollment(db);
    const res = await api(`/agents/${agent.id}/schedule/sequences`, {
      method: "POST",
      key: apiKey,
      body: { contacts: Array.from({ length: 100 }, (_, i) => person(i)) },
    });
    expect(res.status).toBe(202);
    // durably recorded, nothing created yet
    expect(await sequencesOf(res.body.batchId)).toHaveLength(0);
    const [run] = await materializeRuns(res.body.batchId);
    expect(run!.status).not.toBe("completed");

    await runner.drain();
    const rows = await expectBatchComplete(res.body.batchId, 100);
    expect((await materializeRuns(res.body.batchId)).map((r) => r.status)).toEqual(["completed"]);
    const announced = await startedEventsFor(rows.map((row) => row.id));
    expect(announced.sort()).toEqual(rows.map((row) => row.id).sort());
  });

  it("creates a full request of 1,000 contacts in one step by default, counted once into the batch", async () => {
    const { runner, api } = await startRunner(DEFAULT_CHUNK_SIZE);
    const { apiKey, agent } = await setupEnrollment(db);
    const res = await api(`/agents/${agent.id}/schedule/sequences`, {
      method: "POST",
      key: apiKey,
      body: { contacts: Array.from({ length: 1000 }, (_, i) => person(i)) },
    });
    expect(res.status).toBe(202);
    await runner.drain();
    const rows = await expectBatchComplete(res.body.batchId, 1000);
    const [run] = await materializeRuns(res.body.batchId);
    const steps = await db.select({ stepId: inngestSteps.stepId }).from(inngestSteps).where(eq(inngestSteps.runId, run!.id));
    expect(steps.map((step) => step.stepId).filter((id) => id.startsWith("create-chunks-"))).toEqual(["create-chunks-0"]);
    expect((await startedEventsFor(rows.map((row) => row.id))).sort()).toEqual(rows.map((row) => row.id).sort());
    // the same batch sent again (what the resume sweep does) creates and counts nothing more
    await inngest.send({ name: "sequence/bulk.accepted", data: { batchId: res.body.batchId } });
    await runner.drain();
    await expectBatchComplete(res.body.batchId, 1000);
  });

  it("announces only the scheduled contacts of chained groups", async () => {
    const { runner, api } = await startRunner(500);
    const { apiKey, agent } = await setupEnrollment(db);
    const res = await api(`/agents/${agent.id}/schedule/sequences`, {
      method: "POST",
      key: apiKey,
      body: { groupByField: "company_name", contacts: [person(1), person(2), person(3, { company_name: "Hooli" })] },
    });
    await runner.drain();
    const rows = await sequencesOf(res.body.batchId);
    expect(rows.map((row) => row.chainStatus)).toEqual(["active", "waiting", "active"]);
    expect((await startedEventsFor(rows.map((row) => row.id))).sort()).toEqual([rows[0]!.id, rows[2]!.id].sort());
  });

  it("resumes a killed run without loss or duplicates", async () => {
    const { runner, clock, api } = await startRunner(25, 1);
    const { apiKey, agent } = await setupEnrollment(db);
    const res = await api(`/agents/${agent.id}/schedule/sequences`, {
      method: "POST",
      key: apiKey,
      body: { contacts: Array.from({ length: 110 }, (_, i) => person(i)) },
    });
    const { batchId } = res.body;
    // run job by job until part of the batch exists, then kill the run (what "cancel run" does on an Inngest server)
    for (let jobs = 0; jobs < 50 && (await sequencesOf(batchId)).length < 50; jobs += 1) await runOneJob(runner);
    const partial = (await sequencesOf(batchId)).length;
    expect(partial).toBeGreaterThan(0);
    expect(partial).toBeLessThan(110);
    const [killed] = await materializeRuns(batchId);
    await transaction(db, async (tx) => {
      const run = await lockRun(tx, killed!.id);
      await finishRun(tx, { now: clock.now(), partition: runner.partition, registry: runner.runner.functions() }, run!, { status: "cancelled", eventId: null });
    });
    await runner.drain();
    expect((await sequencesOf(batchId)).length).toBe(partial);
    expect((await db.select().from(bulkBatches).where(eq(bulkBatches.id, batchId)))[0]!.status).toBe("creating");

    // the resume sweep finds the stalled batch and a new run finishes it
    await runner.advance(3 * MINUTE);
    const runs = await materializeRuns(batchId);
    expect(runs.map((r) => r.status).sort()).toEqual(["cancelled", "completed"]);
    const rows = await expectBatchComplete(batchId, 110);
    // every sequence announced exactly once, also those the killed run created but never announced
    expect((await startedEventsFor(rows.map((row) => row.id))).sort()).toEqual(rows.map((row) => row.id).sort());
  });

  it("retries a chunk whose transaction crashed midway: the half-written chunk is rolled back, then created once", async () => {
    const { runner } = await startRunner(30);
    const { apiKey, agent } = await setupEnrollment(db);
    const api = patientApiClient(db, { now: runner.clock.now });
    // The first insert of call records for this agent fails: the chunk's sequences are already inserted in that
    // transaction when it dies.
    const suffix = agent.id.replace(/[^a-z0-9]/g, "_");
    await db.execute(sql.raw(`create sequence crash_${suffix}`));
    await db.execute(
      sql.raw(`create function crash_${suffix}() returns trigger language plpgsql as $$
        begin
          if new.agent_id = '${agent.id}' and nextval('crash_${suffix}') = 1 then raise exception 'simulated crash'; end if;
          return new;
        end $$`),
    );
    await db.execute(sql.raw(`create trigger crash_${suffix} before insert on calls for each row execute function crash_${suffix}()`));
    try {
      const res = await api(`/agents/${agent.id}/schedule/sequences`, {
        method: "POST",
        key: apiKey,
        body: { contacts: Array.from({ length: 70 }, (_, i) => person(i)) },
      });
      await runner.drain();
      expect(await sequencesOf(res.body.batchId)).toHaveLength(0);
      await runner.advance(5 * MINUTE); // retry backoff
      await expectBatchComplete(res.body.batchId, 70);
      expect((await materializeRuns(res.body.batchId)).map((r) => r.status)).toEqual(["completed"]);
    } finally {
      await db.execute(sql.raw(`drop trigger crash_${suffix} on calls`));
      await db.execute(sql.raw(`drop function crash_${suffix}()`));
      await db.execute(sql.raw(`drop sequence crash_${suffix}`));
    }
  });
});
