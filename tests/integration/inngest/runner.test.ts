import { randomUUID } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { inngestAttempts, inngestRuns, inngestSteps } from "@/db/schema/jobs";
import { inngest } from "@/inngest/client";
import { retryDelayMs } from "@/inngest/embedded";
import { useTestDb } from "../../helpers/db";
import { startTestInngest, type TestInngest } from "../../helpers/inngest";
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
