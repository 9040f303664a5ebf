import { randomBytes, randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { inngestRuns } from "@/db/schema/jobs";
import { inngest } from "@/inngest/client";
import { createEmbeddedRunner, type EmbeddedRunner } from "@/inngest/embedded";
import { ingestEventsInTx } from "@/inngest/embedded/intake";
import { transaction } from "@/inngest/embedded/state";
import { useTestDb } from "../../helpers/db";
import { createTestClock, startTestInngest } from "../../helpers/inngest";
import { intervals, sampleFunctions } from "./sample-functions";

/**
 * The server's runner (autoPoll) starts a run as soon as its event is stored, not at its next poll: `inngest.send()`
 * in the same process pokes it, and an event stored by another process reaches it through LISTEN/NOTIFY. The polling
 * interval here is a minute (idle sleep four minutes with LISTEN), so a run that waited for a poll would time out.
 */
const db = useTestDb();

const echo = inngest.createFunction({ id: "test-wake-echo", triggers: [{ event: "test/wake.echo" }], retries: 0 }, async ({ event, step }) =>
  step.run("echo", () => (event.data as { key: string }).key),
);

let runner: EmbeddedRunner | null = null;
afterEach(async () => {
  await runner?.stop();
  runner = null;
});

async function startIdleRunner() {
  runner = createEmbeddedRunner({
    db,
    functions: [echo],
    partition: `test-wake-${randomBytes(6).toString("hex")}`,
    autoPoll: true,
    // Its clock is the real one: pruning would delete the events and keys of other files' runners on simulated clocks.
    pruneIntervalMs: 0,
    pollIntervalMs: 60_000,
    logger: { info: () => {}, warn: () => {}, error: console.error },
  });
  await runner.start();
  // Let the start-up claim pass: from here on the runner sleeps until woken.
  await new Promise((resolve) => setTimeout(resolve, 300));
  return runner;
}

/** Milliseconds until the run of the event with `key` has completed (fails after `limitMs`). */
async function completedWithin(key: string, started: number, limitMs: number): Promise<number> {
  for (;;) {
    const [run] = await db
      .select({ status: inngestRuns.status, output: inngestRuns.output })
      .from(inngestRuns)
      .where(sql`${inngestRuns.event}->'data'->>'key' = ${key}`);
    if (run?.status === "completed") {
      expect(run.output).toBe(key);
      return performance.now() - started;
    }
    if (performance.now() - started > limitMs) throw new Error(`run of ${key} not completed after ${limitMs} ms (status ${run?.status ?? "none"})`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe("the polling runner wakes on new work", () => {
  it("starts a run on inngest.send() in the same process without waiting for a poll", async () => {
    await startIdleRunner();
    const key = randomUUID();
    const started = performance.now();
    await inngest.send({ name: "test/wake.echo", data: { key } });
    expect(await completedWithin(key, started, 10_000)).toBeLessThan(10_000);
  }, 20_000);

  it("starts a run on an event stored by another process (NOTIFY at commit), without waiting for a poll", async () => {
    const idle = await startIdleRunner();
    const key = randomUUID();
    const started = performance.now();
    // What another process's send does: the same intake, on its own connection, with no runner of ours to poke.
    await transaction(db, (tx) =>
      ingestEventsInTx(tx, { now: new Date(), partition: idle.partition, registry: idle.functions() }, [{ name: "test/wake.echo", data: { key } }]),
    );
    expect(await completedWithin(key, started, 10_000)).toBeLessThan(10_000);
  }, 20_000);
});

describe("claims under advisory locks", () => {
  it("two runners claiming at once keep a concurrency key to its limit and start a run's discovery once", async () => {
    const clock = createTestClock(new Date("2031-03-04T09:00:00Z"));
    const a = await startTestInngest({ db, functions: sampleFunctions, clock, concurrency: 4 });
    const b = await startTestInngest({ db, functions: sampleFunctions, clock, partition: a.partition, concurrency: 4 });
    try {
      const group = randomUUID();
      const keys: string[] = Array.from({ length: 6 }, () => randomUUID());
      await inngest.send(keys.map((key) => ({ name: "test/serial", data: { key, group } })));
      await Promise.all([a.drain(), b.drain()]);
      await Promise.all([a.drain(), b.drain()]);
      const mine = intervals.filter((interval) => interval.name === "serial" && keys.includes(interval.key));
      // every step of every run once, and never two of the group's steps at the same time (limit 1 on the key)
      expect(mine).toHaveLength(12);
      const overlapping = mine.filter((x) => mine.some((y) => x !== y && x.startedAt < y.endedAt && y.startedAt < x.endedAt));
      expect(overlapping).toEqual([]);
      const runs = await db
        .select({ status: inngestRuns.status })
        .from(inngestRuns)
        .where(sql`${inngestRuns.partition} = ${a.partition} and ${inngestRuns.event}->'data'->>'group' = ${group}`);
      expect(runs.map((run) => run.status)).toEqual(Array(6).fill("completed"));
    } finally {
      await a.stop();
      await b.stop();
    }
  }, 60_000);
});

/** Runs of `test-drain-slots`: the "hold" runs wait (up to a bound) for the "quick" run that has no slot yet. */
const held = { quickRan: false, release: () => {}, released: Promise.resolve() };
const drainSlots = inngest.createFunction({ id: "test-drain-slots", triggers: [{ event: "test/drain-slots" }], retries: 0 }, async ({ event, step }) => {
  const { kind } = event.data as { kind: "hold" | "free" | "quick" };
  return step.run("work", async () => {
    if (kind === "quick") {
      held.quickRan = true;
      held.release();
      return "quick";
    }
    if (kind === "free") return "free";
    // Waits for the quick run, or 3 s when it cannot start before this request ends.
    const quickStartedMeanwhile = await Promise.race([held.released.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 3000))]);
    return quickStartedMeanwhile;
  });
});

describe("drain() claims like the server's runner", () => {
  it("claims as soon as one slot is free, while the other requests still run", async () => {
    held.quickRan = false;
    held.released = new Promise<void>((resolve) => (held.release = resolve));
    const jobs = await startTestInngest({ db, functions: [drainSlots], concurrency: 4 });
    try {
      // Four slots: three requests hold theirs, one ends at once; the fifth run needs that free slot.
      await inngest.send([
        ...Array.from({ length: 3 }, () => ({ name: "test/drain-slots", data: { kind: "hold" } })),
        { name: "test/drain-slots", data: { kind: "free" } },
      ]);
      await inngest.send({ name: "test/drain-slots", data: { kind: "quick" } });
      await jobs.drain();
      expect(held.quickRan).toBe(true);
      const runs = await db
        .select({ output: inngestRuns.output, event: inngestRuns.event })
        .from(inngestRuns)
        .where(sql`${inngestRuns.partition} = ${jobs.partition} and ${inngestRuns.functionId} = 'outbound-calling-test-drain-slots'`);
      const holds = runs.filter((run) => (run.event.data as { kind: string }).kind === "hold");
      // Every held request saw the quick run start before it ended: no one waited for half the slots to free.
      expect(holds.map((run) => run.output)).toEqual([true, true, true]);
    } finally {
      await jobs.stop();
    }
  }, 30_000);
});
