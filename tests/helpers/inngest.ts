import { randomBytes } from "node:crypto";
import type { InngestFunction } from "inngest";
import type { Db } from "@/db";
import { createEmbeddedRunner, type EmbeddedRunner } from "@/inngest/embedded";

/** A settable clock shared by runners (a restart test hands the same clock to the second runner). */
export type TestClock = { now: () => Date; set: (time: Date) => void; advance: (ms: number) => void };

export function createTestClock(start: Date = new Date()): TestClock {
  let current = start.getTime();
  return {
    now: () => new Date(current),
    set: (time) => {
      current = time.getTime();
    },
    advance: (ms) => {
      current += ms;
    },
  };
}

export type TestInngest = {
  runner: EmbeddedRunner;
  clock: TestClock;
  partition: string;
  /** Runs everything runnable at the current clock until nothing is left; returns the jobs executed. */
  drain: () => Promise<number>;
  /** Moves the clock forward, stopping at each due time on the way (sleeps, retries, crons) and running it. */
  advance: (ms: number) => Promise<number>;
  /** The earliest due time of this runner's pending work. */
  nextWakeAt: () => Promise<Date | null>;
  /** See EmbeddedRunner.stop: requests in flight finish (or, past `timeoutMs`, their leases are released). */
  stop: (options?: { timeoutMs?: number }) => Promise<void>;
};

export type StartTestInngestOptions = {
  db: Db;
  /** Defaults to the app's functions. */
  functions?: readonly InngestFunction.Any[];
  clock?: TestClock;
  /** Share a partition to take over another runner's runs (restart tests); a fresh one by default. */
  partition?: string;
  concurrency?: number;
};

/**
 * An embedded Inngest runner over the test database, driven by hand: no polling, an injected clock, no retry
 * jitter. `inngest.send()` from code under test lands on the newest runner of this process.
 */
export async function startTestInngest(options: StartTestInngestOptions): Promise<TestInngest> {
  const clock = options.clock ?? createTestClock();
  const partition = options.partition ?? `test-${randomBytes(6).toString("hex")}`;
  const runner = createEmbeddedRunner({
    db: options.db,
    functions: options.functions,
    now: clock.now,
    partition,
    autoPoll: false,
    random: () => 0,
    concurrency: options.concurrency ?? 4,
    logger: { info: () => {}, warn: console.warn, error: console.error },
  });
  await runner.start();

  const drain = () => runner.drain();
  const advance = async (ms: number) => {
    const target = clock.now().getTime() + ms;
    let executed = await drain();
    for (let round = 0; round < 10_000; round++) {
      const next = await runner.nextWakeAt();
      if (!next || next.getTime() > target) break;
      const stalled = next.getTime() <= clock.now().getTime();
      if (!stalled) clock.set(next);
      const ran = await drain();
      executed += ran;
      if (stalled && ran === 0) break;
    }
    clock.set(new Date(target));
    return executed + (await drain());
  };
  return { runner, clock, partition, drain, advance, nextWakeAt: () => runner.nextWakeAt(), stop: async (stopOptions) => void (await runner.stop(stopOptions)) };
}
