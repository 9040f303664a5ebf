import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { inngestAttempts, inngestJobs, inngestRuns, inngestSteps } from "@/db/schema/jobs";
import { inngest } from "@/inngest/client";
import { useTestDb } from "../../helpers/db";
import { createTestClock, startTestInngest, type TestInngest } from "../../helpers/inngest";

const db = useTestDb();
const started: TestInngest[] = [];
afterEach(async () => {
  for (const runner of started.splice(0)) await runner.stop();
});

const calls = new Map<string, number>();
const bump = (name: string) => {
  const next = (calls.get(name) ?? 0) + 1;
  calls.set(name, next);
  return next;
};
const count = (name: string) => calls.get(name) ?? 0;

/** A gate per test key: the step named "slow" waits on it the first time it runs. */
const gates = new Map<string, { opened: Promise<void>; open: () => void; entered: Promise<void>; enter: () => void }>();
function gate(key: string) {
  let open!: () => void;
  let enter!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  const entered = new Promise<void>((resolve) => (enter = resolve));
  const created = { opened, open, entered, enter };
  gates.set(key, created);
  return created;
}

const threeSteps = inngest.createFunction({ id: "test-three-steps", triggers: [{ event: "test/three-steps" }] }, async ({ event, step }) => {
  const { key } = event.data as { key: string };
  const first = await step.run("first", () => bump(`${key}:first`));
  const slow = await step.run("slow", async () => {
    const call = bump(`${key}:slow`);
    const waiting = gates.get(key);
    if (waiting && call === 1) {
      waiting.enter();
      await waiting.opened;
    }
    return call;
  });
  const last = await step.run("last", () => bump(`${key}:last`));
  return { first, slow, last };
});

async function start(options: Partial<Parameters<typeof startTestInngest>[0]> = {}) {
  const runner = await startTestInngest({ db, functions: [threeSteps], ...options });
  started.push(runner);
  return runner;
}

async function runOf(key: string) {
  const rows = await db.select().from(inngestRuns).where(eq(inngestRuns.functionId, "outbound-calling-test-three-steps"));
  return rows.find((run) => (run.event.data as { key: string }).key === key)!;
}

describe("embedded runner: checkpoints (several steps per request)", () => {
  it("runs a whole function in one request, each step memoized as it completes", async () => {
    const runner = await start();
    const key = randomUUID();
    await inngest.send({ name: "test/three-steps", data: { key } });
    // One request, three steps reported through checkpoints.
    expect(await runner.drain()).toBe(4);
    const run = await runOf(key);
    expect(run.status).toBe("completed");
    expect(run.output).toEqual({ first: 1, slow: 1, last: 1 });
    expect(run.stack).toHaveLength(3);
    const steps = await db.select().from(inngestSteps).where(eq(inngestSteps.runId, run.id));
    expect(steps.map((step) => [step.stepId, step.status]).sort()).toEqual([
      ["first", "completed"],
      ["last", "completed"],
      ["slow", "completed"],
    ]);
    const attempts = await db.select().from(inngestAttempts).where(eq(inngestAttempts.runId, run.id));
    expect(attempts.map((attempt) => attempt.outcome).sort()).toEqual(["function-completed", "step-completed", "step-completed", "step-completed"]);
  });

  it("a request that yields keeps its finished steps: the next request goes on from there", async () => {
    const runner = await start({ concurrency: 1 });
    const key = randomUUID();
    await inngest.send({ name: "test/three-steps", data: { key } });
    // drain({ maxJobs: 0 }) makes the request stop after its first step.
    await expect(runner.runner.drain({ maxJobs: 0 })).rejects.toThrow("executed more than 0 jobs");
    expect([count(`${key}:first`), count(`${key}:slow`), count(`${key}:last`)]).toEqual([1, 0, 0]);
    expect((await runOf(key)).status).toBe("running");
    await runner.drain();
    expect([count(`${key}:first`), count(`${key}:slow`), count(`${key}:last`)]).toEqual([1, 1, 1]);
    expect((await runOf(key)).output).toEqual({ first: 1, slow: 1, last: 1 });
  });
});

/** A runner draining a three-step run that is now inside its slow step (held until `slow.open()`). */
async function runUntilSlowStep(at: string) {
  const clock = createTestClock(new Date(at));
  const first = await start({ clock });
  const key = randomUUID();
  const slow = gate(key);
  await inngest.send({ name: "test/three-steps", data: { key } });
  const draining = first.drain();
  await slow.entered;
  return { clock, first, key, slow, draining };
}

describe("embedded runner: stop", () => {
  it("lets the step in flight finish, then gives the rest of the run to another runner", async () => {
    const { clock, first, key, slow, draining } = await runUntilSlowStep("2031-04-01T09:00:00Z");
    const stopping = first.runner.stop();
    slow.open();
    expect(await stopping).toEqual({ released: 0 });
    await draining;
    // The slow step's result was kept; the last step was left for someone else.
    expect([count(`${key}:first`), count(`${key}:slow`), count(`${key}:last`)]).toEqual([1, 1, 0]);
    expect((await runOf(key)).status).toBe("running");

    const second = await start({ clock, partition: first.partition });
    await second.drain();
    expect([count(`${key}:first`), count(`${key}:slow`), count(`${key}:last`)]).toEqual([1, 1, 1]);
    expect((await runOf(key)).output).toEqual({ first: 1, slow: 1, last: 1 });
  });

  it("with a timeout, releases the lease of a request still running: another runner takes it over at once", async () => {
    const { clock, first, key, slow, draining } = await runUntilSlowStep("2031-04-02T09:00:00Z");
    expect(await first.runner.stop({ timeoutMs: 50 })).toEqual({ released: 1 });
    const [job] = await db.select().from(inngestJobs).where(eq(inngestJobs.runId, (await runOf(key)).id));
    expect(job).toMatchObject({ leaseToken: null, leaseOwner: null });

    // No clock advance: the released job is due now, not when its 60 s lease would have expired.
    const second = await start({ clock, partition: first.partition });
    await second.drain();
    const run = await runOf(key);
    expect(run.status).toBe("completed");
    // The interrupted step ran again (at least once); the step before it did not.
    expect(run.output).toEqual({ first: 1, slow: 2, last: 1 });

    // The first runner's request finishes late: its result is dropped, nothing runs twice.
    slow.open();
    await draining;
    expect([count(`${key}:first`), count(`${key}:slow`), count(`${key}:last`)]).toEqual([1, 2, 1]);
    expect((await runOf(key)).output).toEqual({ first: 1, slow: 2, last: 1 });
    const attempts = await db.select().from(inngestAttempts).where(eq(inngestAttempts.runId, run.id));
    expect(attempts.filter((attempt) => attempt.runnerId === first.runner.id).map((attempt) => attempt.outcome)).toEqual(["step-completed"]);
  });
});
