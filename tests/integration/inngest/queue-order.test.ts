import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { inngest } from "@/inngest/client";
import { useTestDb } from "../../helpers/db";
import { startTestInngest, type TestInngest } from "../../helpers/inngest";

/**
 * The order in which the embedded runner claims due work is Inngest's queue score: a started run's next request ranks
 * by the run's start, so a busy function's newer runs do not hold back the follow-up of older ones (a campaign's
 * analysis batches announce `call/analyzed` while later batches are still queued, and the webhooks flow meanwhile).
 */
const db = useTestDb();
const order: string[] = [];

const chain = inngest.createFunction({ id: "test-order-chain", triggers: [{ event: "test/order.chain" }], retries: 0 }, async ({ event, step }) => {
  const key = (event.data as { key: string }).key;
  // Two steps at once: the runner queues each as its own request, then the run's next discovery request.
  await Promise.all([step.run("a", () => order.push(`${key}:a`)), step.run("b", () => order.push(`${key}:b`))]);
  await step.run("after", () => order.push(`${key}:after`));
});
const fresh = inngest.createFunction({ id: "test-order-fresh", triggers: [{ event: "test/order.fresh" }], retries: 0 }, async ({ event, step }) =>
  step.run("go", () => order.push(`${(event.data as { key: string }).key}:fresh`)),
);

let current: TestInngest | null = null;
afterEach(async () => {
  await current?.stop();
  current = null;
});

describe("the embedded runner's queue order", () => {
  it("runs a started run's next requests before runs created after it started", async () => {
    current = await startTestInngest({ db, functions: [chain, fresh], concurrency: 1 });
    order.length = 0;
    const key = randomUUID();
    await inngest.send({ name: "test/order.chain", data: { key } });
    current.clock.advance(1000);
    await inngest.send(Array.from({ length: 3 }, () => ({ name: "test/order.fresh", data: { key } })));
    await current.drain();
    // The chain's steps were queued after the fresh runs (their discovery requests were due first), yet come first.
    expect(order).toEqual([`${key}:a`, `${key}:b`, `${key}:after`, `${key}:fresh`, `${key}:fresh`, `${key}:fresh`]);
  });

  it("still runs due work in due order across runs created at different times", async () => {
    current = await startTestInngest({ db, functions: [fresh], concurrency: 1 });
    order.length = 0;
    const [first, second] = [randomUUID(), randomUUID()];
    await inngest.send({ name: "test/order.fresh", data: { key: first } });
    current.clock.advance(1000);
    await inngest.send({ name: "test/order.fresh", data: { key: second } });
    await current.drain();
    expect(order).toEqual([`${first}:fresh`, `${second}:fresh`]);
  });
});
