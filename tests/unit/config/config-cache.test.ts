import { afterEach, describe, expect, it, vi } from "vitest";

describe("the cached configuration (server/config/env.ts)", () => {
  afterEach(() => vi.unstubAllEnvs());

  it("is one per process: every copy of the module reads, reloads and drops the same one", async () => {
    const first = await import("@/server/config/env");
    vi.resetModules();
    // A second module graph (as Next.js's bundles beside the custom server): a fresh copy of the module.
    const second = await import("@/server/config/env");
    const registry = await import("@/server/runtime/process-singleton");
    expect(second).not.toBe(first);

    const config = first.getConfig();
    expect(second.getConfig()).toBe(config);
    expect(registry.processSingletonCreations().get("appConfig")).toBe(1);

    // Dropped by one copy, read again by the other; reloaded by one, seen by both.
    second.resetConfigForTests();
    const reread = first.getConfig();
    expect(reread).not.toBe(config);
    expect(second.getConfig()).toBe(reread);
    const reloaded = second.reloadConfig();
    expect(reloaded).not.toBe(reread);
    expect(first.getConfig()).toBe(reloaded);

    // A test's change of process.env drops it too (tests/setup/per-file.ts resets it through its own copy).
    vi.stubEnv("PORT", "4321");
    expect(first.getConfig().PORT).toBe(4321);
    expect(second.getConfig().PORT).toBe(4321);
  });
});
