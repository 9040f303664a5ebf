/**
 * `npm start` under a process manager (systemd, pm2, supervisord, a container whose command is `npm start`): a SIGTERM
 * to npm drains the app and `npm start` exits 0 — a process manager reads anything else as a crash; a drain cut short
 * exits non-zero; a SIGTERM to the whole process group (systemd's default KillMode) may reach the app twice, directly
 * and through npm, and is still one graceful shutdown.
 */
import http from "node:http";
import { afterAll, describe, expect, it } from "vitest";
import { startBuiltApp, type BuiltApp, type LogLine } from "./harness";

let app: BuiltApp | undefined;
let dataDir: string | undefined;

afterAll(async () => {
  await app?.stop();
});

function shutdownLines(lines: LogLine[]) {
  return {
    started: lines.filter((line) => line.component === "shutdown" && typeof line.msg === "string" && line.msg.startsWith("shutting down")),
    summary: lines.find((line) => line.component === "shutdown" && (line.msg === "shut down" || line.msg === "shut down with parts cut short")),
    secondSignal: lines.some((line) => line.msg === "second signal: exiting now"),
  };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The app's next start on the data of the first one (no second seed). */
async function restart(env: Record<string, string> = {}): Promise<BuiltApp> {
  app = await startBuiltApp({ dataDir, env, readyTimeoutMs: 540_000 });
  return app;
}

describe("npm start and SIGTERM", () => {
  it("a SIGTERM to npm drains the app, and npm start exits 0", async () => {
    // A first start seeds the demo: on a busy machine that alone takes minutes.
    app = await startBuiltApp({ readyTimeoutMs: 540_000 });
    dataDir = app.dataDir;
    const running = app;
    const exit = await running.stop({ target: "npm", keepData: true });
    app = undefined;
    const { started, summary, secondSignal } = shutdownLines(running.logs());
    expect(started, "the app was told to shut down, once").toHaveLength(1);
    expect(started[0]).toMatchObject({ signal: "SIGTERM" });
    expect(summary, "the drain's summary line").toMatchObject({ msg: "shut down", timedOut: [], failed: [] });
    expect(secondSignal).toBe(false);
    expect(running.logs().some((line) => line.component === "shutdown" && line.msg === "stopped" && line.part === "http-server")).toBe(true);
    expect(exit).toEqual({ code: 0, signal: null });
    expect(isAlive(running.pid), "the app exited with npm").toBe(false);
  }, 900_000);

  it("a SIGTERM the app gets twice — directly, then relayed by npm, as when the process group is signalled — is one graceful shutdown: exit 0", async () => {
    const running = await restart();
    // systemd's default KillMode, `kill -TERM -<pgid>`, a terminal's Ctrl-C (SIGINT): every process of the group gets
    // the signal, and npm relays its copy to the app a moment later (when the two do not merge in the kernel first).
    process.kill(running.pid, "SIGTERM");
    await new Promise((resolve) => setTimeout(resolve, 100));
    const exit = await running.stop({ target: "npm", keepData: true });
    app = undefined;
    const { started, summary, secondSignal } = shutdownLines(running.logs());
    expect(secondSignal, "the relayed copy of the signal is not a second signal").toBe(false);
    expect(started).toHaveLength(1);
    expect(summary).toMatchObject({ msg: "shut down", timedOut: [], failed: [] });
    expect(exit).toEqual({ code: 0, signal: null });
  }, 900_000);

  it("a drain cut short (a request still in flight when the time is up): npm start exits non-zero", async () => {
    // Run alone (-t), this test starts (and seeds) an app of its own.
    // 10 s: the request holds the drain to its end (8 s), and 2 s are left to stop the database cleanly.
    const running = await restart({ SHUTDOWN_TIMEOUT_SECONDS: "10" });
    // An enrollment whose body never finishes arriving: the request stays in flight through the drain.
    const agentId = running.primary.agents.find((agent) => agent.role === "link")!.agentId;
    const request = http.request({
      host: "127.0.0.1",
      port: running.port,
      method: "POST",
      path: `/api/v1/agents/${agentId}/schedule/sequence`,
      headers: { "x-api-key": running.primary.apiKey, "content-type": "application/json", "content-length": 10_000 },
    });
    request.on("error", () => {});
    request.write('{"name": "Slow Upload", ');
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const exit = await running.stop({ target: "npm" });
    app = undefined;
    request.destroy();
    const { summary } = shutdownLines(running.logs());
    expect(summary).toMatchObject({ msg: "shut down with parts cut short", timedOut: ["http-server"], failed: [] });
    expect(exit.signal).toBeNull();
    expect(exit.code).not.toBe(0);
    expect(exit.code).not.toBeNull();
  }, 900_000);
});
