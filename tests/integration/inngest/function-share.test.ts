import { randomBytes, randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { inngestRuns } from "@/db/schema/jobs";
import { inngest } from "@/inngest/client";
import { createEmbeddedRunner, type EmbeddedRunner } from "@/inngest/embedded";
import { useTestDb } from "../../helpers/db";

/**
 * The runner's function share: a burst of one function (a campaign's analysis batches, each a long step) must not take
 * every worker, or the dispatcher, webhook deliveries and a meeting's reconciliation wait until the burst is over.
 */
const db = useTestDb();

const hogs = { executing: 0, most: 0, release: () => {}, released: Promise.resolve() };
const hog = inngest.createFunction({ id: "test-share-hog", triggers: [{ event: "test/share.hog" }], retries: 0 }, async ({ step }) =>
  step.run("hold", async () => {
    hogs.executing++;
    hogs.most = Math.max(hogs.most, hogs.executing);
    // Held until the test lets go (bounded, so a broken runner fails the test instead of hanging it).
    await Promise.race([hogs.released, new Promise((resolve) => setTimeout(resolve, 20_000))]);
    hogs.executing--;
    return "held";
  }),
);
const quick = inngest.createFunction({ id: "test-share-quick", triggers: [{ event: "test/share.quick" }], retries: 0 }, async ({ event, step }) =>
  step.run("answer", () => (event.data as { key: string }).key),
);

let runner: EmbeddedRunner | null = null;
afterEach(async () => {
  hogs.release();
  await runner?.stop();
  runner = null;
});

async function startRunner(functionShare: number | undefined) {
  hogs.executing = 0;
  hogs.most = 0;
  hogs.released = new Promise<void>((resolve) => (hogs.release = resolve));
  runner = createEmbeddedRunner({
    db,
    functions: [hog, quick],
    partition: `test-share-${randomBytes(6).toString("hex")}`,
    autoPoll: true,
    // Its clock is the real one: pruning would delete the events and keys of other files' runners on simulated clocks.
    pruneIntervalMs: 0,
    concurrency: 4,
    functionShare,
    pollIntervalMs: 200,
    logger: { info: () => {}, warn: () => {}, error: console.error },
  });
  await runner.start();
  return runner;
}

async function statusOf(key: string): Promise<string | undefined> {
  const [run] = await db.select({ status: inngestRuns.status }).from(inngestRuns).where(sql`${inngestRuns.event}->'data'->>'key' = ${key}`);
  return run?.status;
}

async function until(condition: () => Promise<boolean> | boolean, limitMs: number): Promise<boolean> {
  const started = performance.now();
  while (performance.now() - started < limitMs) {
    if (await condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return false;
}

describe("the embedded runner's function share", () => {
  it("a burst of one function holds at most its share of the workers; another function's run goes through meanwhile", async () => {
    await startRunner(2);
    await inngest.send(Array.from({ length: 8 }, () => ({ name: "test/share.hog", data: { key: randomUUID() } })));
    expect(await until(() => hogs.executing === 2, 10_000)).toBe(true);

    const key = randomUUID();
    await inngest.send({ name: "test/share.quick", data: { key } });
    // Completed while all eight hogs are still held (two executing, six waiting for a worker).
    expect(await until(async () => (await statusOf(key)) === "completed", 10_000)).toBe(true);
    expect(hogs.executing).toBe(2);
    expect(hogs.most).toBe(2);

    // Let go: the other six go through, never more than two at once.
    hogs.release();
    expect(await until(async () => {
      const [row] = await db.execute<{ n: number }>(sql`
        select count(*)::int as n from inngest_runs where partition = ${runner!.partition} and function_id like '%test-share-hog' and status = 'completed'`);
      return row!.n === 8;
    }, 20_000)).toBe(true);
    expect(hogs.most).toBe(2);
  }, 60_000);

  it("without a share (the default), the burst takes every worker and the other run waits", async () => {
    await startRunner(undefined);
    await inngest.send(Array.from({ length: 8 }, () => ({ name: "test/share.hog", data: { key: randomUUID() } })));
    expect(await until(() => hogs.executing === 4, 10_000)).toBe(true);
    const key = randomUUID();
    await inngest.send({ name: "test/share.quick", data: { key } });
    expect(await until(async () => (await statusOf(key)) === "completed", 1_500)).toBe(false);
    hogs.release();
    expect(await until(async () => (await statusOf(key)) === "completed", 20_000)).toBe(true);
  }, 60_000);
});
