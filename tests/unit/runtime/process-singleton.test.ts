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

  it("keeps a settable value in a holder made once: what one copy sets the other reads, and /metrics counts one", async () => {
    vi.resetModules();
    const first = await import("@/server/analysis");
    vi.resetModules();
    const second = await import("@/server/analysis");
    const metrics = await import("@/server/observability/metrics");
    expect(second).not.toBe(first);
    const analyzer = { ...first.ruleBasedAnalyzer };
    first.setCallAnalyzer(analyzer);
    try {
      expect(second.getCallAnalyzer()).toBe(analyzer);
      second.setCallAnalyzer(undefined);
      expect(first.getCallAnalyzer()).toBe(first.ruleBasedAnalyzer);
      first.setCallAnalyzer(analyzer);
      const { body } = await metrics.renderMetrics(null);
      expect(body).toMatch(/^app_process_singleton_creations\{key="callAnalyzer"\} 1$/m);
      expect(body).toMatch(/^app_process_singleton_creations\{key="metrics"\} 1$/m);
    } finally {
      first.setCallAnalyzer(undefined);
    }
  });
});
