import { afterEach, describe, expect, it } from "vitest";
import { cpuStageOfFunction, cpuStageOfRequest, disableStageCpuAccounting, enableStageCpuAccounting, inCpuStage, stageCpuSeconds } from "@/server/observability/stage-cpu";

/** Spends `ms` of CPU (however long that takes on a loaded machine). */
function burn(ms: number) {
  const cpu = () => {
    const { user, system } = process.cpuUsage();
    return user + system;
  };
  const until = cpu() + ms * 1000;
  while (cpu() < until);
}
const tick = () => new Promise((resolve) => setTimeout(resolve, 1));

afterEach(() => disableStageCpuAccounting());

describe("CPU by pipeline stage", () => {
  it("charges each callback to the stage of the work that started it, across timers and awaits, nested stages apart", async () => {
    enableStageCpuAccounting();
    await Promise.all([
      inCpuStage("dispatch", async () => {
        await tick();
        burn(60);
        await tick();
        burn(20);
      }),
      inCpuStage("analysis", async () => {
        await tick();
        burn(30);
        // Finalizing inside the analysis is charged to finalize, and the analysis goes on as analysis.
        await inCpuStage("finalize", async () => {
          await tick();
          burn(40);
        });
        burn(10);
      }),
    ]);
    const seconds = stageCpuSeconds();
    expect(seconds.dispatch).toBeGreaterThanOrEqual(0.079);
    // Bounds below double counting (a nested stage's time also in its parent's): slack for a loaded machine.
    expect(seconds.dispatch).toBeLessThan(0.115);
    expect(seconds.analysis).toBeGreaterThanOrEqual(0.039);
    expect(seconds.analysis).toBeLessThan(0.075);
    expect(seconds.finalize).toBeGreaterThanOrEqual(0.039);
    expect(seconds.finalize).toBeLessThan(0.075);
    expect(seconds.webhook).toBe(0);
  });

  it("counts nothing while off, and runs the work all the same", async () => {
    expect(await inCpuStage("webhook", async () => (burn(5), 42))).toBe(42);
    expect(Object.values(stageCpuSeconds()).every((value) => value === 0)).toBe(true);
  });

  it("names the stage of the runner's functions and of HTTP requests", () => {
    expect(cpuStageOfFunction("outbound-calling-dispatch-due-calls")).toBe("dispatch");
    expect(cpuStageOfFunction("outbound-calling-analyze-call")).toBe("analysis");
    expect(cpuStageOfFunction("outbound-calling-deliver-webhook")).toBe("webhook");
    expect(cpuStageOfFunction("outbound-calling-materialize-bulk-batch")).toBe("enrollment");
    expect(cpuStageOfFunction("outbound-calling-call-watchdog")).toBe("runner");
    expect(cpuStageOfRequest("/api/voice/events")).toBe("voice-events");
    expect(cpuStageOfRequest("/api/v1/agents/agent.1/schedule/sequences")).toBe("enrollment");
    expect(cpuStageOfRequest("/api/v1/agents/agent.1/schedule/sequence?x=1")).toBe("enrollment");
    expect(cpuStageOfRequest("/api/v1/agents")).toBe("http");
  });
});
