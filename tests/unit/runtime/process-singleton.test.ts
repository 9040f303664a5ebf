import { describe, expect, it, vi } from "vitest";

describe("process-wide state (server/runtime/process-singleton.ts)", () => {
  it("is made once per process, however many copies of the modules ask", async () => {
    const first = await import("@/server/observability/stage-cpu");
    first.inCpuStage("dispatch", () => undefined);
    vi.resetModules();
    // A second module graph (as Next.js's bundles beside the custom server): a fresh copy of both modules.
    const second = await import("@/server/observability/stage-cpu");
    const registry = await import("@/server/runtime/process-singleton");
    expect(second).not.toBe(first);
    // Both copies see one state: what the second enables, the first's work runs under.
    second.enableStageCpuAccounting();
    try {
      expect(first.inCpuStage("webhook", () => process.env.NODE_ENV)).toBe(process.env.NODE_ENV);
      expect(registry.processSingletonCreations().get("stageCpu")).toBe(1);
      const made: string[] = [];
      expect(registry.processSingleton("stageCpu", () => made.push("again"))).toBe(registry.processSingleton("stageCpu", () => made.push("again")));
      expect(made).toEqual([]);
    } finally {
      second.disableStageCpuAccounting();
    }
  });
});
