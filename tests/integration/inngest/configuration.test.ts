import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { inngestRuns } from "@/db/schema/jobs";
import { inngest } from "@/inngest/client";
import { UnsupportedConfigurationError } from "@/inngest/embedded";
import { useTestDb } from "../../helpers/db";
import { startTestInngest, type TestInngest } from "../../helpers/inngest";

const db = useTestDb();
let current: TestInngest | null = null;
afterEach(async () => {
  await current?.stop();
  current = null;
});

const noop = async () => null;

async function refusal(fn: ReturnType<typeof inngest.createFunction>): Promise<UnsupportedConfigurationError> {
  const error = await startTestInngest({ db, functions: [fn] }).then(
    (started) => {
      current = started;
      throw new Error("start() accepted an unsupported configuration");
    },
    (error: unknown) => error,
  );
  expect(error).toBeInstanceOf(UnsupportedConfigurationError);
  return error as UnsupportedConfigurationError;
}

describe("embedded runner: unsupported configuration is refused at registration", () => {
  it.each([
    ["throttle", { throttle: { limit: 1, period: "1m" } }],
    ["rateLimit", { rateLimit: { limit: 1, period: "1m" } }],
    ["debounce", { debounce: { period: "5s" } }],
    ["priority", { priority: { run: "event.data.rank" } }],
    ["singleton", { singleton: { mode: "skip" as const } }],
    ["timeouts", { timeouts: { finish: "1h" } }],
  ])("names the function and the option: %s", async (option, config) => {
    const options = { id: `test-unsupported-${option.toLowerCase()}`, triggers: [{ event: "test/none" }], ...config };
    const error = await refusal(inngest.createFunction(options as Parameters<typeof inngest.createFunction>[0], noop));
    expect(error.message).toContain(`function "outbound-calling-test-unsupported-${option.toLowerCase()}", option "${option}"`);
    expect(error.message).toContain("not supported by the embedded runner");
  });

  it("refuses expressions outside the supported subset, naming the option", async () => {
    const error = await refusal(
      inngest.createFunction(
        { id: "test-unsupported-expression", triggers: [{ event: "test/none" }], cancelOn: [{ event: "test/stop", if: "event.data.n > async.data.n" }] },
        noop,
      ),
    );
    expect(error.message).toContain('function "outbound-calling-test-unsupported-expression", option "cancelOn.if"');
    expect(error.message).toContain("event.data.n > async.data.n");
  });

  it.each([
    ["idempotency", { idempotency: "event.data.id" }, "cannot be combined with idempotency"],
    ["cancelOn", { cancelOn: [{ event: "test/stop", match: "data.id" }] }, "cannot be combined with cancelOn"],
  ])("refuses batchEvents combined with %s", async (option, config, message) => {
    const id = `test-batch-with-${option.toLowerCase()}`;
    const options = { id, triggers: [{ event: "test/none" }], batchEvents: { maxSize: 5, timeout: "5s" }, ...config };
    const error = await refusal(inngest.createFunction(options as Parameters<typeof inngest.createFunction>[0], noop));
    expect(error.message).toContain(`function "outbound-calling-${id}", option "batchEvents": ${message}`);
  });

  it("refuses a batchEvents without a usable size or timeout", async () => {
    const options = { id: "test-bad-batch", triggers: [{ event: "test/none" }], batchEvents: { maxSize: 0, timeout: "soon" } };
    const error = await refusal(inngest.createFunction(options as Parameters<typeof inngest.createFunction>[0], noop));
    expect(error.message).toContain('function "outbound-calling-test-bad-batch", option "batchEvents.maxSize": must be a positive integer');
    expect(error.message).toContain('option "batchEvents.timeout": must be a duration');
  });

  it("refuses an invalid cron", async () => {
    const error = await refusal(inngest.createFunction({ id: "test-bad-cron", triggers: [{ cron: "every tuesday" }] }, noop));
    expect(error.message).toContain('function "outbound-calling-test-bad-cron", option "triggers.cron"');
  });
});

describe("embedded runner: unsupported steps fail the run loudly", () => {
  const signalFunction = inngest.createFunction({ id: "test-signal", triggers: [{ event: "test/signal" }] }, async ({ step }) => {
    await step.waitForSignal("wait-signal", { signal: "go", timeout: "1h", onConflict: "replace" });
  });
  const badWaitFunction = inngest.createFunction({ id: "test-bad-wait", triggers: [{ event: "test/bad-wait" }] }, async ({ step }) => {
    return step.waitForEvent("wait", { event: "test/other", timeout: "1h", if: "event.data.total > async.data.total" });
  });

  it("fails a run that uses an op the runner does not implement, naming function and op", async () => {
    current = await startTestInngest({ db, functions: [signalFunction] });
    const key = randomUUID();
    await inngest.send({ name: "test/signal", data: { key } });
    await current.drain();
    const [run] = (await db.select().from(inngestRuns).where(eq(inngestRuns.functionId, "outbound-calling-test-signal"))).filter(
      (candidate) => (candidate.event.data as { key: string }).key === key,
    );
    expect(run!.status).toBe("failed");
    expect(run!.error!.message).toContain('Function "outbound-calling-test-signal" used WaitForSignal (step "wait-signal")');
  });

  it("fails a waitForEvent whose expression is not supported", async () => {
    current = await startTestInngest({ db, functions: [badWaitFunction] });
    const key = randomUUID();
    await inngest.send({ name: "test/bad-wait", data: { key } });
    await current.drain();
    const [run] = (await db.select().from(inngestRuns).where(eq(inngestRuns.functionId, "outbound-calling-test-bad-wait"))).filter(
      (candidate) => (candidate.event.data as { key: string }).key === key,
    );
    expect(run!.status).toBe("failed");
    expect(run!.error!.message).toContain("event.data.total > async.data.total");
  });
});
