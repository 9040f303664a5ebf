import { randomUUID } from "node:crypto";
import { and, eq, inArray, sql } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { inngestBatchEvents, inngestEvents, inngestRuns } from "@/db/schema/jobs";
import { inngest } from "@/inngest/client";
import { ingestEventsInTx } from "@/inngest/embedded/intake";
import { transaction } from "@/inngest/embedded/state";
import { useTestDb } from "../../helpers/db";
import { startTestInngest, type TestInngest } from "../../helpers/inngest";
import { fannedFunction, intervals, sampleFunctions, serialFunction } from "./sample-functions";

const db = useTestDb();
let current: TestInngest | null = null;
afterEach(async () => {
  await current?.stop();
  current = null;
});

type BatchData = { group: string; n: number; lane?: string };
/** What each batched run received, per group. */
const received = new Map<string, number[][]>();

const batchedFunction = inngest.createFunction(
  { id: "test-batched", triggers: [{ event: "test/batched" }], batchEvents: { maxSize: 3, timeout: "5s" } },
  async ({ events, step }) => {
    const ns = events.map((event) => (event.data as BatchData).n);
    const group = (events[0]!.data as BatchData).group;
    await step.run("record", () => received.set(group, [...(received.get(group) ?? []), ns]));
    return ns;
  },
);

const keyedBatchFunction = inngest.createFunction(
  {
    id: "test-batched-by-lane",
    triggers: [{ event: "test/batched.lane" }],
    batchEvents: { maxSize: 10, timeout: "2s", key: "event.data.lane", if: "event.data.mode == 'batch'" },
  },
  async ({ events, step }) => {
    const data = events.map((event) => event.data as BatchData);
    await step.run("record", () => received.set(data[0]!.group, [...(received.get(data[0]!.group) ?? []), data.map((d) => d.n)]));
  },
);

const batch = (group: string, from: number, count: number, extra: Record<string, unknown> = {}) =>
  Array.from({ length: count }, (_, i) => ({ name: "test/batched", data: { group, n: from + i, ...extra } }));

describe("embedded runner: batchEvents", () => {
  it("starts a run per full batch of maxSize events at once, and the rest when the timeout passes", async () => {
    current = await startTestInngest({ db, functions: [batchedFunction] });
    const group = randomUUID();
    await inngest.send(batch(group, 0, 7));
    await current.drain();
    expect(received.get(group)).toEqual([
      [0, 1, 2],
      [3, 4, 5],
    ]);
    // The seventh waits in the open batch until 5 s after it arrived.
    expect((await current.nextWakeAt())!.getTime()).toBe(current.clock.now().getTime() + 5000);
    await current.advance(4999);
    expect(received.get(group)).toHaveLength(2);
    await current.advance(1);
    expect(received.get(group)).toEqual([[0, 1, 2], [3, 4, 5], [6]]);
    const runs = await db.select().from(inngestRuns).where(eq(inngestRuns.partition, current.partition));
    expect(runs.map((run) => [run.status, (run.events ?? []).length]).sort()).toEqual([
      ["completed", 1],
      ["completed", 3],
      ["completed", 3],
    ]);
  });

  it("fills a batch across several sends, and its timeout counts from its first event", async () => {
    current = await startTestInngest({ db, functions: [batchedFunction] });
    const group = randomUUID();
    await inngest.send(batch(group, 0, 1));
    await current.advance(3000);
    await inngest.send(batch(group, 1, 1));
    await current.advance(1999);
    expect(received.get(group)).toBeUndefined();
    await current.advance(1);
    expect(received.get(group)).toEqual([[0, 1]]);
    await inngest.send(batch(group, 2, 2));
    await inngest.send(batch(group, 4, 1));
    await current.drain();
    expect(received.get(group)).toEqual([
      [0, 1],
      [2, 3, 4],
    ]);
  });

  it("two intakes into the same open batch do not wait for each other; the batch keeps its events in arrival order", async () => {
    current = await startTestInngest({ db, functions: [batchedFunction] });
    const group = randomUUID();
    const ctx = { now: current.clock.now(), partition: current.partition, registry: current.runner.functions() };
    await transaction(db, async (first) => {
      await ingestEventsInTx(first, ctx, batch(group, 0, 1));
      // While the first intake has not committed, a second one appends to the same batch on another connection: it
      // must not wait for a lock the first holds (it would until lock_timeout, and fail).
      await transaction(db, async (second) => {
        await second.execute(sql`set local lock_timeout = '2s'`);
        await ingestEventsInTx(second, ctx, batch(group, 1, 1));
      });
    });
    await inngest.send(batch(group, 2, 1));
    await current.drain();
    expect(received.get(group)).toEqual([[0, 1, 2]]);
  });

  it("a batch that two intakes filled together, neither seeing it full, runs at the next look, not at its timeout", async () => {
    current = await startTestInngest({ db, functions: [batchedFunction] });
    const group = randomUUID();
    const ctx = { now: current.clock.now(), partition: current.partition, registry: current.runner.functions() };
    // Each intake counts its own two events and none of the other's (not committed yet): neither forms the batch.
    await transaction(db, async (first) => {
      await ingestEventsInTx(first, ctx, batch(group, 0, 2));
      await transaction(db, async (second) => ingestEventsInTx(second, ctx, batch(group, 2, 2)));
    });
    expect(received.get(group)).toBeUndefined();
    // The runner's next look at due work forms the full batch on the same clock; the fourth event waits for the timeout.
    await current.drain();
    expect(received.get(group)).toHaveLength(1);
    expect(received.get(group)![0]).toHaveLength(3);
    await current.advance(5000);
    expect(received.get(group)!.flat().sort()).toEqual([0, 1, 2, 3]);
  });

  it("a batch filled by many concurrent intakes runs every event exactly once", async () => {
    current = await startTestInngest({ db, functions: [batchedFunction] });
    const group = randomUUID();
    const sends = Array.from({ length: 40 }, async (_, n) => {
      await inngest.send(batch(group, n, 1));
    });
    await Promise.all(sends);
    await current.drain();
    await current.advance(5000);
    const runs = received.get(group) ?? [];
    expect(runs.flat().sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, n) => n));
    expect(runs.every((events) => events.length >= 1 && events.length <= 3)).toBe(true);
    // At least the batches that filled ran at once (not all at the timeout), and nothing is left waiting.
    expect(runs.filter((events) => events.length === 3).length).toBeGreaterThan(0);
    expect(await db.select().from(inngestBatchEvents).where(eq(inngestBatchEvents.partition, current.partition))).toEqual([]);
  });

  it("keeps one batch per key, and runs events that fail the batch's if on their own at once", async () => {
    current = await startTestInngest({ db, functions: [keyedBatchFunction] });
    const [left, right] = [randomUUID(), randomUUID()];
    await inngest.send([
      { name: "test/batched.lane", data: { group: left, lane: "left", n: 1, mode: "batch" } },
      { name: "test/batched.lane", data: { group: right, lane: "right", n: 2, mode: "batch" } },
      { name: "test/batched.lane", data: { group: left, lane: "left", n: 3, mode: "now" } },
      { name: "test/batched.lane", data: { group: left, lane: "left", n: 4, mode: "batch" } },
    ]);
    await current.drain();
    expect(received.get(left)).toEqual([[3]]);
    await current.advance(2000);
    expect(received.get(left)).toEqual([[3], [1, 4]]);
    expect(received.get(right)).toEqual([[2]]);
  });
});

describe("embedded runner: event intake in batches", () => {
  it("records a 500-event send in one call: one run per event, and an id sent twice counts once", async () => {
    current = await startTestInngest({ db, functions: [fannedFunction] });
    const key = randomUUID();
    const events = Array.from({ length: 500 }, (_, i) => ({ id: `${key}-${i % 498}`, name: "test/fanned", data: { key, via: `n${i % 498}` } }));
    const { ids } = await inngest.send(events);
    expect(ids).toHaveLength(500);
    expect(ids[498]).toBe(ids[0]);
    expect(ids[499]).toBe(ids[1]);
    expect(new Set(ids).size).toBe(498);
    const stored = await db.select().from(inngestEvents).where(inArray(inngestEvents.id, ids));
    expect(stored).toHaveLength(498);
    const runs = await db
      .select()
      .from(inngestRuns)
      .where(and(eq(inngestRuns.partition, current.partition), eq(inngestRuns.functionId, "outbound-calling-test-fanned")));
    expect(runs).toHaveLength(498);
    expect(runs.every((run) => run.status === "queued")).toBe(true);
    // Sent again later: all duplicates, nothing new.
    const again = await inngest.send(events.slice(0, 10));
    expect(again.ids).toEqual(ids.slice(0, 10));
    expect(await db.select().from(inngestRuns).where(eq(inngestRuns.partition, current.partition))).toHaveLength(498);
  });

  it("in one send, an event cancels the runs that earlier events started, not those it or later events start", async () => {
    current = await startTestInngest({ db, functions: sampleFunctions });
    const key = randomUUID();
    await inngest.send([
      { name: "test/sleep", data: { key, n: 1 } },
      { name: "test/sleep.cancel", data: { key } },
      { name: "test/sleep", data: { key, n: 2 } },
    ]);
    await current.advance(2 * 86_400_000);
    const runs = (await db.select().from(inngestRuns).where(eq(inngestRuns.functionId, "outbound-calling-test-sleep"))).filter(
      (run) => (run.event.data as { key: string }).key === key,
    );
    const byN = new Map(runs.map((run) => [(run.event.data as { n: number }).n, run.status]));
    expect(byN).toEqual(
      new Map([
        [1, "cancelled"],
        [2, "completed"],
      ]),
    );
  });

  it("resumes a waiter with the first matching event of a send", async () => {
    current = await startTestInngest({ db, functions: sampleFunctions });
    const key = randomUUID();
    await inngest.send({ name: "test/wait", data: { key } });
    await current.drain();
    await inngest.send([
      { name: "test/approved", data: { key: randomUUID(), by: "someone else" } },
      { name: "test/approved", data: { key, by: "first" } },
      { name: "test/approved", data: { key, by: "second" } },
    ]);
    await current.drain();
    const [run] = (await db.select().from(inngestRuns).where(eq(inngestRuns.functionId, "outbound-calling-test-wait"))).filter(
      (candidate) => (candidate.event.data as { key: string }).key === key,
    );
    expect(run!.output).toEqual({ approvedBy: "first" });
  });
});

describe("embedded runner: concurrency keys", () => {
  it("limits each key on its own: runs of one group never overlap, runs of two groups do", async () => {
    current = await startTestInngest({ db, functions: [serialFunction] });
    const [groupA, groupB] = [randomUUID(), randomUUID()];
    const [a1, a2, b1] = [randomUUID(), randomUUID(), randomUUID()];
    await inngest.send([
      { name: "test/serial", data: { key: a1, group: groupA } },
      { name: "test/serial", data: { key: a2, group: groupA } },
      { name: "test/serial", data: { key: b1, group: groupB } },
    ]);
    await current.drain();
    const of = (keys: string[]) => intervals.filter((interval) => keys.includes(interval.key));
    const overlap = (xs: typeof intervals, ys: typeof intervals) => xs.some((x) => ys.some((y) => x !== y && x.startedAt < y.endedAt && y.startedAt < x.endedAt));
    expect(overlap(of([a1]), of([a2]))).toBe(false);
    expect(overlap(of([a1, a2]), of([b1]))).toBe(true);
  });
});
