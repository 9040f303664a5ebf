import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { inngestAttempts, inngestJobs, inngestRuns, inngestSteps } from "@/db/schema/jobs";
import { inngest } from "@/inngest/client";
import { useTestDb } from "../../helpers/db";
import { createTestClock, startTestInngest } from "../../helpers/inngest";
import { count, sampleFunctions } from "./sample-functions";

const db = useTestDb();
const DAY = 86_400_000;

async function runOf(functionId: string, key: string) {
  const rows = await db.select().from(inngestRuns).where(eq(inngestRuns.functionId, `outbound-calling-${functionId}`));
  return rows.find((run) => (run.event.data as { key?: string }).key === key);
}

describe("embedded runner: durability", () => {
  it("a run sleeping in one runner completes exactly once in a new runner over the same database", async () => {
    const clock = createTestClock(new Date("2031-03-01T09:00:00Z"));
    const first = await startTestInngest({ db, functions: sampleFunctions, clock });
    const key = randomUUID();
    await inngest.send({ name: "test/sleep", data: { key } });
    await first.drain();
    const sleeping = await runOf("test-sleep", key);
    expect(sleeping!.status).toBe("running");
    expect(count(`${key}:before`)).toBe(1);
    await first.stop();

    // Process restart: a fresh runner (new id, new function registry) over the same database and partition.
    const second = await startTestInngest({ db, functions: sampleFunctions, clock, partition: first.partition });
    expect(second.runner.id).not.toBe(first.runner.id);
    await second.drain();
    expect((await runOf("test-sleep", key))!.status).toBe("running");
    await second.advance(DAY);
    const done = await runOf("test-sleep", key);
    expect(done!.status).toBe("completed");
    expect(done!.output).toEqual({ before: { call: 1 }, after: { call: 1 } });
    expect(count(`${key}:before`)).toBe(1);
    expect(count(`${key}:after`)).toBe(1);

    const steps = await db.select().from(inngestSteps).where(eq(inngestSteps.runId, done!.id));
    expect(steps.map((step) => [step.stepId, step.status]).sort()).toEqual([
      ["after", "completed"],
      ["before", "completed"],
      ["nap", "completed"],
    ]);
    const attempts = await db.select().from(inngestAttempts).where(eq(inngestAttempts.runId, done!.id));
    expect(new Set(attempts.map((attempt) => attempt.runnerId))).toEqual(new Set([first.runner.id, second.runner.id]));
    expect(attempts.filter((attempt) => attempt.outcome === "step-completed")).toHaveLength(2);
    // Nothing more to do, even after another day.
    await second.advance(DAY);
    expect(count(`${key}:after`)).toBe(1);
    await second.stop();
  });

  it("two runners draining the same partition at once run every step exactly once", async () => {
    const clock = createTestClock(new Date("2031-03-02T09:00:00Z"));
    const a = await startTestInngest({ db, functions: sampleFunctions, clock, concurrency: 3 });
    const b = await startTestInngest({ db, functions: sampleFunctions, clock, partition: a.partition, concurrency: 3 });
    const keys = Array.from({ length: 12 }, () => randomUUID());
    await inngest.send(keys.map((key) => ({ name: "test/parallel", data: { key } })));
    await Promise.all([a.drain(), b.drain()]);
    await Promise.all([a.drain(), b.drain()]);
    for (const key of keys) {
      const run = await runOf("test-parallel", key);
      // On failure, say where the run stands: its jobs (leases, due times) and what its requests did.
      const state = async () =>
        JSON.stringify({
          jobs: await db.select().from(inngestJobs).where(eq(inngestJobs.runId, run!.id)),
          attempts: await db.select().from(inngestAttempts).where(eq(inngestAttempts.runId, run!.id)),
          now: clock.now(),
        });
      expect(run!.status, run!.status === "completed" ? undefined : await state()).toBe("completed");
      for (const part of ["a", "b", "c"]) expect(count(`${key}:part-${part}`)).toBe(1);
    }
    const runners = await db.select({ runnerId: inngestAttempts.runnerId }).from(inngestAttempts);
    const ids = new Set(runners.map((row) => row.runnerId));
    expect(ids.has(a.runner.id) && ids.has(b.runner.id)).toBe(true);
    await a.stop();
    await b.stop();
  });
});

describe("embedded runner: crash recovery", () => {
  it("a job leased by a runner that died is run by another once the lease expires", async () => {
    const clock = createTestClock(new Date("2031-03-03T09:00:00Z"));
    const jobs = await startTestInngest({ db, functions: sampleFunctions, clock });
    const key = randomUUID();
    await inngest.send({ name: "test/parallel", data: { key } });
    const run = await runOf("test-parallel", key);
    // A runner claimed the first request and died before answering.
    await db
      .update(inngestJobs)
      .set({ leaseToken: "dead-runner", leaseOwner: "runner-dead", leaseExpiresAt: new Date(clock.now().getTime() + 60_000) })
      .where(eq(inngestJobs.runId, run!.id));
    await jobs.drain();
    expect((await runOf("test-parallel", key))!.status).toBe("queued");
    await jobs.advance(60_001);
    const after = await runOf("test-parallel", key);
    // On failure, say where the run stands: its jobs (leases, due times) and what its requests did.
    const state = async () =>
      JSON.stringify({
        jobs: await db.select().from(inngestJobs).where(eq(inngestJobs.runId, run!.id)),
        attempts: await db.select().from(inngestAttempts).where(eq(inngestAttempts.runId, run!.id)),
        steps: await db.select().from(inngestSteps).where(eq(inngestSteps.runId, run!.id)),
        now: jobs.clock.now(),
      });
    expect(after!.status, after!.status === "completed" ? undefined : await state()).toBe("completed");
    for (const part of ["a", "b", "c"]) expect(count(`${key}:part-${part}`)).toBe(1);
    await jobs.stop();
  });
});

describe("embedded runner: retention", () => {
  it("prunes ended runs of its partition and old events, keeping running runs", async () => {
    const clock = createTestClock(new Date("2000-01-01T00:00:00Z"));
    const jobs = await startTestInngest({ db, functions: sampleFunctions, clock });
    const [done, sleeping] = [randomUUID(), randomUUID()];
    await inngest.send([
      { name: "test/parallel", data: { key: done } },
      { name: "test/sleep", data: { key: sleeping } },
    ]);
    await jobs.drain();
    const finished = await runOf("test-parallel", done);
    expect(finished!.status).toBe("completed");
    clock.advance(15 * DAY);
    expect(await jobs.runner.prune()).toMatchObject({ runs: 1 });
    expect(await runOf("test-parallel", done)).toBeUndefined();
    expect(await db.select().from(inngestSteps).where(eq(inngestSteps.runId, finished!.id))).toHaveLength(0);
    expect(await db.select().from(inngestAttempts).where(eq(inngestAttempts.runId, finished!.id))).toHaveLength(0);
    expect((await runOf("test-sleep", sleeping))!.status).toBe("running");
    await jobs.stop();
  });
});
