import { randomUUID } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { inngestAttempts, inngestJobs, inngestRuns, inngestSteps } from "@/db/schema/jobs";
import { inngest } from "@/inngest/client";
import { retryDelayMs } from "@/inngest/embedded";
import { useTestDb } from "../../helpers/db";
import { createTestClock, startTestInngest, type TestInngest } from "../../helpers/inngest";
import { count, intervals, sampleFunctions } from "./sample-functions";

const db = useTestDb();
const DAY = 86_400_000;
let current: TestInngest | null = null;

async function start(options: Partial<Parameters<typeof startTestInngest>[0]> = {}) {
  current = await startTestInngest({ db, functions: sampleFunctions, ...options });
  return current;
}

afterEach(async () => {
  await current?.stop();
  current = null;
});

async function runsFor(functionId: string, key: string, field = "key") {
  const rows = await db.select().from(inngestRuns).where(eq(inngestRuns.functionId, `outbound-calling-${functionId}`));
  return rows.filter((run) => (run.event.data as Record<string, unknown>)[field] === key);
}

describe("embedded runner: steps and retries", () => {
  it("retries a failing step with backoff and succeeds on attempt 3", async () => {
    const runner = await start();
    const key = randomUUID();
    await inngest.send({ name: "test/retry", data: { key } });
    await runner.drain();
    expect(count(`${key}:flaky`)).toBe(1);
    const [run] = await runsFor("test-retry", key);
    expect(run!.status).toBe("running");
    expect((await runner.nextWakeAt())!.getTime()).toBe(runner.clock.now().getTime() + retryDelayMs(1, () => 0));

    await runner.advance(retryDelayMs(1, () => 0) - 1);
    expect(count(`${key}:flaky`)).toBe(1);
    await runner.advance(1);
    expect(count(`${key}:flaky`)).toBe(2);
    await runner.advance(retryDelayMs(2, () => 0));
    expect(count(`${key}:flaky`)).toBe(3);

    const [done] = await runsFor("test-retry", key);
    expect(done!.status).toBe("completed");
    expect(done!.output).toEqual({ succeededOnCall: 3, attempt: 2 });
    const attempts = await db.select().from(inngestAttempts).where(eq(inngestAttempts.runId, done!.id));
    expect(attempts.filter((a) => a.outcome === "step-error").map((a) => a.attempt)).toEqual([0, 1]);
    expect(attempts.find((a) => a.outcome === "step-error")!.error!.message).toBe("flaky failure 1");
  });

  it("runs onFailure exactly once after a NonRetriableError, without retrying", async () => {
    const runner = await start();
    const key = randomUUID();
    await inngest.send({ name: "test/non-retriable", data: { key } });
    await runner.advance(DAY);
    expect(count(`${key}:doomed`)).toBe(1);
    expect(count(`${key}:on-failure`)).toBe(1);
    expect(count(`${key}:on-failure-message:the contact does not exist`)).toBe(1);
    const [run] = await runsFor("test-non-retriable", key);
    expect(run!.status).toBe("failed");
    expect(run!.error!.message).toContain("the contact does not exist");
  });
});

describe("embedded runner: time, events and flow control", () => {
  it("completes a one-day sleep only after the clock advances past it", async () => {
    const runner = await start();
    const key = randomUUID();
    await inngest.send({ name: "test/sleep", data: { key } });
    await runner.drain();
    const [run] = await runsFor("test-sleep", key);
    const steps = await db.select().from(inngestSteps).where(eq(inngestSteps.runId, run!.id));
    const nap = steps.find((step) => step.stepId === "nap")!;
    expect(nap.status).toBe("sleeping");
    expect(nap.wakeAt!.getTime()).toBe(runner.clock.now().getTime() + DAY);

    await runner.advance(DAY - 1000);
    expect(count(`${key}:after`)).toBe(0);
    expect((await runsFor("test-sleep", key))[0]!.status).toBe("running");
    await runner.advance(1000);
    const [done] = await runsFor("test-sleep", key);
    expect(done!.status).toBe("completed");
    expect(done!.output).toEqual({ before: { call: 1 }, after: { call: 1 } });
    expect(count(`${key}:before`)).toBe(1);
  });

  it("resumes waitForEvent with the matching event only", async () => {
    const runner = await start();
    const key = randomUUID();
    await inngest.send({ name: "test/wait", data: { key } });
    await runner.drain();
    await inngest.send({ name: "test/approved", data: { key: randomUUID(), by: "someone else" } });
    await runner.advance(60_000);
    expect((await runsFor("test-wait", key))[0]!.status).toBe("running");
    await inngest.send({ name: "test/approved", data: { key, by: "manager" } });
    await runner.drain();
    const [run] = await runsFor("test-wait", key);
    expect(run!.status).toBe("completed");
    expect(run!.output).toEqual({ approvedBy: "manager" });
  });

  it("returns null from waitForEvent when the timeout passes", async () => {
    const runner = await start();
    const key = randomUUID();
    await inngest.send({ name: "test/wait", data: { key } });
    await runner.drain();
    await runner.advance(60 * 60_000 - 1000);
    expect((await runsFor("test-wait", key))[0]!.status).toBe("running");
    await runner.advance(1000);
    const [run] = await runsFor("test-wait", key);
    expect(run!.status).toBe("completed");
    expect(run!.output).toEqual({ approvedBy: null });
    // An event after the timeout changes nothing.
    await inngest.send({ name: "test/approved", data: { key, by: "late" } });
    await runner.drain();
    expect((await runsFor("test-wait", key))[0]!.output).toEqual({ approvedBy: null });
  });

  it("cancelOn stops a sleeping run: the step after the sleep never runs", async () => {
    const runner = await start();
    const key = randomUUID();
    const other = randomUUID();
    await inngest.send([
      { name: "test/sleep", data: { key } },
      { name: "test/sleep", data: { key: other } },
    ]);
    await runner.drain();
    await inngest.send({ name: "test/sleep.cancel", data: { key } });
    await runner.advance(2 * DAY);
    const [cancelled] = await runsFor("test-sleep", key);
    expect(cancelled!.status).toBe("cancelled");
    expect(cancelled!.cancelledByEventId).toBeTruthy();
    expect(count(`${key}:after`)).toBe(0);
    const [untouched] = await runsFor("test-sleep", other);
    expect(untouched!.status).toBe("completed");
    expect(count(`${other}:after`)).toBe(1);
  });

  it("fires a cron function when its schedule comes due", async () => {
    const { cronFunction } = await import("./sample-functions");
    const runner = await start({ functions: [cronFunction], clock: createTestClock(new Date("2030-01-01T10:01:00Z")) });
    const before = count("cron:tick");
    await runner.drain();
    expect(count("cron:tick")).toBe(before);
    expect(await runner.nextWakeAt()).toEqual(new Date("2030-01-01T10:05:00Z"));
    await runner.advance(4 * 60_000 - 1);
    expect(count("cron:tick")).toBe(before);
    await runner.advance(1);
    expect(count("cron:tick")).toBe(before + 1);
    await runner.advance(5 * 60_000);
    expect(count("cron:tick")).toBe(before + 2);
    const runs = await db
      .select()
      .from(inngestRuns)
      .where(and(eq(inngestRuns.functionId, "outbound-calling-test-cron"), eq(inngestRuns.partition, runner.partition)));
    expect(runs).toHaveLength(2);
    expect(runs.every((run) => run.status === "completed" && (run.event as { name: string }).name === "inngest/scheduled.timer")).toBe(true);
  });

  it("concurrency 1 serialises two runs (and without a limit they overlap)", async () => {
    const runner = await start();
    const group = randomUUID();
    const [a, b, c, d] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    await inngest.send([
      { name: "test/serial", data: { key: a, group } },
      { name: "test/serial", data: { key: b, group } },
      { name: "test/unlimited", data: { key: c } },
      { name: "test/unlimited", data: { key: d } },
    ]);
    await runner.drain();
    const overlaps = (name: string, keys: string[]) => {
      const mine = intervals.filter((interval) => interval.name === name && keys.includes(interval.key));
      expect(mine).toHaveLength(4);
      return mine.some((x) => mine.some((y) => x !== y && x.startedAt < y.endedAt && y.startedAt < x.endedAt));
    };
    expect(overlaps("serial", [a, b])).toBe(false);
    expect(overlaps("unlimited", [c, d])).toBe(true);
    for (const key of [a, b]) expect((await runsFor("test-concurrency", key))[0]!.status).toBe("completed");
  });

  it("an idempotency key drops the duplicate event's run", async () => {
    const runner = await start();
    const orderId = randomUUID();
    await inngest.send({ name: "test/order.placed", data: { orderId } });
    await inngest.send({ name: "test/order.placed", data: { orderId } });
    await runner.drain();
    expect(count(`${orderId}:charged`)).toBe(1);
    expect(await runsFor("test-idempotency", orderId, "orderId")).toHaveLength(1);
    // Another key runs.
    const otherOrder = randomUUID();
    await inngest.send({ name: "test/order.placed", data: { orderId: otherOrder } });
    await runner.drain();
    expect(count(`${otherOrder}:charged`)).toBe(1);
  });

  it("a partition is one environment: another partition's running runs take no slot of the limit, and its idempotency keys drop nothing here", async () => {
    // Another environment on the same database (test files in parallel): its run of the function is executing.
    const elsewhere = await startTestInngest({ db, functions: sampleFunctions, clock: createTestClock(new Date(Date.now() + 365 * DAY)) });
    const group = randomUUID();
    const [theirs, ours, orderId] = [randomUUID(), randomUUID(), randomUUID()];
    try {
      await inngest.send({ name: "test/serial", data: { key: theirs, group } });
      await inngest.send({ name: "test/order.placed", data: { orderId } });
      const [running] = await runsFor("test-concurrency", theirs);
      const leased = await db
        .update(inngestJobs)
        .set({ leaseToken: "elsewhere", leaseOwner: "elsewhere", leaseExpiresAt: new Date(Date.now() + 400 * DAY) })
        .where(eq(inngestJobs.runId, running!.id))
        .returning();
      expect(leased).toHaveLength(1);

      const runner = await start();
      await inngest.send({ name: "test/serial", data: { key: ours, group } });
      await inngest.send({ name: "test/order.placed", data: { orderId } });
      await runner.drain();
      expect((await runsFor("test-concurrency", ours))[0]!.status).toBe("completed");
      const orders = await runsFor("test-idempotency", orderId, "orderId");
      expect(orders.map((run) => run.partition).sort()).toEqual([elsewhere.partition, runner.partition].sort());
      expect(count(`${orderId}:charged`)).toBe(1);
    } finally {
      await elsewhere.stop({ timeoutMs: 0 });
    }
  });

  it("deduplicates events sent twice with the same id", async () => {
    const runner = await start();
    const orderId = randomUUID();
    const first = await inngest.send({ id: `order-${orderId}`, name: "test/fan-out", data: { key: orderId } });
    const second = await inngest.send({ id: `order-${orderId}`, name: "test/fan-out", data: { key: orderId } });
    expect(second.ids).toEqual(first.ids);
    await runner.drain();
    expect(await runsFor("test-fan-out", orderId)).toHaveLength(1);
  });
});

describe("embedded runner: composition", () => {
  it("runs parallel steps once each and fans in", async () => {
    const runner = await start();
    const key = randomUUID();
    await inngest.send({ name: "test/parallel", data: { key } });
    await runner.drain();
    const [run] = await runsFor("test-parallel", key);
    expect(run!.status).toBe("completed");
    expect(run!.output).toEqual({ total: "a:1,b:1,c:1" });
    for (const part of ["a", "b", "c"]) expect(count(`${key}:part-${part}`)).toBe(1);
  });

  it("step.invoke runs the child and returns its result", async () => {
    const runner = await start();
    const value = Math.floor(Math.random() * 1000);
    await inngest.send({ name: "test/parent", data: { value } });
    await runner.drain();
    const runs = (await db.select().from(inngestRuns).where(eq(inngestRuns.partition, runner.partition))).filter(
      (run) => run.functionId === "outbound-calling-test-parent" && (run.event.data as { value: number }).value === value,
    );
    expect(runs).toHaveLength(1);
    expect(runs[0]!.status).toBe("completed");
    expect(runs[0]!.output).toEqual({ doubled: value * 2 });
    const [child] = await db.select().from(inngestRuns).where(eq(inngestRuns.parentRunId, runs[0]!.id));
    expect(child!.functionId).toBe("outbound-calling-test-child");
    expect(child!.output).toBe(value * 2);
  });

  it("step.sendEvent and inngest.send inside a step trigger other functions once", async () => {
    const runner = await start();
    const key = randomUUID();
    await inngest.send({ name: "test/fan-out", data: { key } });
    await runner.drain();
    expect(count(`${key}:fanned:step.sendEvent`)).toBe(1);
    expect(count(`${key}:fanned:inngest.send`)).toBe(1);
  });

  it("honours RetryAfterError's delay", async () => {
    const runner = await start();
    const key = randomUUID();
    await inngest.send({ name: "test/retry-after", data: { key } });
    await runner.drain();
    expect((await runner.nextWakeAt())!.getTime()).toBe(runner.clock.now().getTime() + 2 * 60 * 60_000);
    await runner.advance(2 * 60 * 60_000);
    const [run] = await runsFor("test-retry-after", key);
    expect(run!.status).toBe("completed");
    expect(run!.output).toBe("ok");
  });

  it("applies a trigger's if-expression", async () => {
    const runner = await start();
    const [vip, regular] = [randomUUID(), randomUUID()];
    await inngest.send([
      { name: "test/conditional", data: { key: vip, kind: "vip" } },
      { name: "test/conditional", data: { key: regular, kind: "regular" } },
    ]);
    await runner.drain();
    expect(count(`${vip}:vip`)).toBe(1);
    expect(count(`${regular}:vip`)).toBe(0);
  });
});
