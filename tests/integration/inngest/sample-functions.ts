import { NonRetriableError, RetryAfterError } from "inngest";
import { inngest } from "@/inngest/client";

/**
 * Test-only functions exercising every feature of the embedded runner (not in the app's `functions`).
 * Each test sends events with its own `key`, so the counters below are per test.
 */
export const calls = new Map<string, number>();
export function count(name: string): number {
  return calls.get(name) ?? 0;
}
function bump(name: string): number {
  const next = count(name) + 1;
  calls.set(name, next);
  return next;
}

type KeyData = { key: string };

export const retryFunction = inngest.createFunction(
  { id: "test-retry", triggers: [{ event: "test/retry" }] },
  async ({ event, step, attempt }) => {
    const { key } = event.data as KeyData;
    return step.run("flaky", () => {
      const call = bump(`${key}:flaky`);
      if (call < 3) throw new Error(`flaky failure ${call}`);
      return { succeededOnCall: call, attempt };
    });
  },
);

export const nonRetriableFunction = inngest.createFunction(
  {
    id: "test-non-retriable",
    triggers: [{ event: "test/non-retriable" }],
    onFailure: async ({ event, error }) => {
      const original = (event.data as { event: { data: KeyData } }).event.data;
      bump(`${original.key}:on-failure`);
      calls.set(`${original.key}:on-failure-message:${error.message}`, 1);
    },
  },
  async ({ event, step }) => {
    const { key } = event.data as KeyData;
    await step.run("doomed", () => {
      bump(`${key}:doomed`);
      throw new NonRetriableError("the contact does not exist");
    });
  },
);

export const sleepFunction = inngest.createFunction(
  {
    id: "test-sleep",
    triggers: [{ event: "test/sleep" }],
    cancelOn: [{ event: "test/sleep.cancel", match: "data.key" }],
  },
  async ({ event, step }) => {
    const { key } = event.data as KeyData;
    const before = await step.run("before", () => ({ call: bump(`${key}:before`) }));
    await step.sleep("nap", "1d");
    const after = await step.run("after", () => ({ call: bump(`${key}:after`) }));
    return { before, after };
  },
);

export const waitFunction = inngest.createFunction(
  { id: "test-wait", triggers: [{ event: "test/wait" }] },
  async ({ step }) => {
    const approval = await step.waitForEvent("wait-approval", { event: "test/approved", timeout: "1h", match: "data.key" });
    return { approvedBy: (approval?.data as { by?: string } | undefined)?.by ?? null };
  },
);

export const cronFunction = inngest.createFunction(
  { id: "test-cron", triggers: [{ cron: "*/5 * * * *" }] },
  async ({ event, step }) => {
    await step.run("tick", () => bump("cron:tick"));
    return { cron: (event.data as { cron?: string }).cron };
  },
);

async function recordInterval(name: string, key: string) {
  const startedAt = performance.now();
  // Long enough that the SDK's own work around a step cannot hide an overlap on a loaded machine.
  await new Promise((resolve) => setTimeout(resolve, 150));
  intervals.push({ name, key, startedAt, endedAt: performance.now() });
}
export const intervals: Array<{ name: string; key: string; startedAt: number; endedAt: number }> = [];

export const serialFunction = inngest.createFunction(
  { id: "test-concurrency", triggers: [{ event: "test/serial" }], concurrency: { limit: 1, key: "event.data.group" } },
  async ({ event, step }) => {
    const { key } = event.data as KeyData;
    await step.run("first", () => recordInterval("serial", key));
    await step.run("second", () => recordInterval("serial", key));
  },
);

export const unlimitedFunction = inngest.createFunction(
  { id: "test-no-concurrency", triggers: [{ event: "test/unlimited" }] },
  async ({ event, step }) => {
    const { key } = event.data as KeyData;
    await step.run("first", () => recordInterval("unlimited", key));
    await step.run("second", () => recordInterval("unlimited", key));
  },
);

export const idempotentFunction = inngest.createFunction(
  { id: "test-idempotency", triggers: [{ event: "test/order.placed" }], idempotency: "event.data.orderId" },
  async ({ event, step }) => {
    const { orderId } = event.data as { orderId: string };
    await step.run("charge", () => bump(`${orderId}:charged`));
  },
);

export const parallelFunction = inngest.createFunction(
  { id: "test-parallel", triggers: [{ event: "test/parallel" }] },
  async ({ event, step }) => {
    const { key } = event.data as KeyData;
    const parts = await Promise.all(["a", "b", "c"].map((part) => step.run(`part-${part}`, () => `${part}:${bump(`${key}:part-${part}`)}`)));
    const total = await step.run("combine", () => parts.join(","));
    return { total };
  },
);

export const childFunction = inngest.createFunction(
  { id: "test-child", triggers: [{ event: "test/child.never-sent" }] },
  async ({ event, step }) => {
    const { value } = event.data as { value: number };
    return step.run("double", () => value * 2);
  },
);

export const parentFunction = inngest.createFunction(
  { id: "test-parent", triggers: [{ event: "test/parent" }] },
  async ({ event, step }) => {
    const { value } = event.data as { value: number };
    const doubled = await step.invoke("call-child", { function: childFunction, data: { value } });
    return { doubled };
  },
);

export const fanOutFunction = inngest.createFunction(
  { id: "test-fan-out", triggers: [{ event: "test/fan-out" }] },
  async ({ event, step }) => {
    const { key } = event.data as KeyData;
    await step.sendEvent("emit", { name: "test/fanned", data: { key, via: "step.sendEvent" } });
    await step.run("send-directly", async () => {
      await inngest.send({ name: "test/fanned", data: { key, via: "inngest.send" } });
    });
  },
);

export const fannedFunction = inngest.createFunction(
  { id: "test-fanned", triggers: [{ event: "test/fanned" }] },
  async ({ event, step }) => {
    const { key, via } = event.data as KeyData & { via: string };
    await step.run("record", () => bump(`${key}:fanned:${via}`));
  },
);

export const retryAfterFunction = inngest.createFunction(
  { id: "test-retry-after", triggers: [{ event: "test/retry-after" }] },
  async ({ event, step }) => {
    const { key } = event.data as KeyData;
    return step.run("rate-limited", () => {
      if (bump(`${key}:rate-limited`) === 1) throw new RetryAfterError("provider says later", "2h");
      return "ok";
    });
  },
);

export const conditionalFunction = inngest.createFunction(
  { id: "test-conditional", triggers: [{ event: "test/conditional", if: "event.data.kind == 'vip'" }] },
  async ({ event, step }) => {
    const { key } = event.data as KeyData;
    await step.run("vip-only", () => bump(`${key}:vip`));
  },
);

/** Everything but the cron function (which would fire on every clock advance; its test registers it alone). */
export const sampleFunctions = [
  retryFunction,
  nonRetriableFunction,
  sleepFunction,
  waitFunction,
  serialFunction,
  unlimitedFunction,
  idempotentFunction,
  parallelFunction,
  childFunction,
  parentFunction,
  fanOutFunction,
  fannedFunction,
  retryAfterFunction,
  conditionalFunction,
];
