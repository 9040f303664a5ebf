import { spawn } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { STDOUT_FLUSH_MS } from "@/server/observability/logger";

type Run = { lines: Array<{ msg: string; line: number }>; firstLineAfterMs: number | null; exitCode: number | null; stillRunningAtFirstLine: boolean };

/** Runs the fixture with its logs on standard output (no LOG_FILE) and collects the JSON lines it wrote. */
function runChild(mode: string): Promise<Run> {
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: "info" };
  delete env.LOG_FILE;
  delete env.LOG_FORMAT;
  const started = performance.now();
  const child = spawn(process.execPath, ["--import", "tsx", path.join(import.meta.dirname, "fixtures/log-then-exit.ts"), mode], {
    cwd: path.resolve(import.meta.dirname, "../../.."),
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let firstLineAfterMs: number | null = null;
  let stillRunningAtFirstLine = false;
  child.stdout.on("data", (chunk) => {
    stdout += String(chunk);
    if (firstLineAfterMs === null && stdout.includes("buffered line")) {
      firstLineAfterMs = performance.now() - started;
      stillRunningAtFirstLine = child.exitCode === null;
    }
  });
  child.stderr.resume();
  return new Promise((resolve) => {
    child.once("close", (exitCode) => {
      const lines = stdout
        .split("\n")
        .filter((line) => line.startsWith("{"))
        .map((line) => JSON.parse(line) as { msg: string; line: number })
        .filter((line) => line.msg === "buffered line");
      resolve({ lines, firstLineAfterMs, exitCode, stillRunningAtFirstLine });
    });
  });
}

describe("standard-output logs are buffered but not lost (server/observability/logger.ts)", () => {
  it.each([
    ["process.exit()", "exit", 0],
    ["an uncaught exception", "throw", 1],
    ["the event loop running empty", "end", 0],
  ])("writes every buffered line when the process ends by %s", { timeout: 60_000 }, async (_label, mode, code) => {
    const run = await runChild(mode);
    expect(run.exitCode).toBe(code);
    expect(run.lines.map((line) => line.line)).toEqual([1, 2, 3]);
  });

  it("writes buffered lines within the flush interval while the process keeps running quietly", { timeout: 60_000 }, async () => {
    const run = await runChild("idle");
    expect(run.lines.map((line) => line.line)).toEqual([1, 2, 3]);
    // The child lives 5 s after logging: its lines came out while it was running, by the periodic flush.
    expect(run.stillRunningAtFirstLine).toBe(true);
    expect(STDOUT_FLUSH_MS).toBeLessThanOrEqual(1000);
  });
});
