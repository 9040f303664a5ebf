/**
 * A small stand-in for the assembly tier's harness (tests/assembly/harness.ts, being written on main): the *built* app
 * (`npm run build` first) started exactly as `npm start` starts it, on a free port and a fresh DATA_DIR (embedded
 * everything, the demo seed of a first start), driven over HTTP only. Its `startBuiltApp` has the harness's shape, so
 * the console-edge tests move onto the harness by changing their import.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "../..");

export type DemoUser = { email: string; password: string; role: string };
export type Demo = { dashboard: { users: DemoUser[] }; organizations: Array<{ key: string; orgId: string; apiKey: string }> };
export type BuiltApp = { origin: string; pid: number; demo: Demo; stop: () => Promise<void> };

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export async function startBuiltApp(options: { env?: Record<string, string> } = {}): Promise<BuiltApp> {
  if (!existsSync(path.join(ROOT, ".next/BUILD_ID"))) throw new Error("No production build: run `npm run build` first.");
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "ocs-console-edge-"));
  chmodSync(dataDir, 0o755);
  const origin = `http://127.0.0.1:${port}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: "",
    DATA_DIR: dataDir,
    PORT: String(port),
    HOST: "127.0.0.1",
    NEXTAUTH_URL: origin,
    CHILI_PIPER_SIMULATOR_PORT: "",
    COMPLIANCE_QUIET_HOURS: "off",
    LOG_FORMAT: "json",
    ...options.env,
  };
  for (const name of ["NODE_OPTIONS", "NODE_ENV", "VITEST", "VITEST_POOL_ID", "VITEST_WORKER_ID", "TEST"]) Reflect.deleteProperty(env, name);
  const child: ChildProcess = spawn("npm", ["start"], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  let exited = false;
  const exit = new Promise<void>((resolve) => child.once("exit", () => ((exited = true), resolve())));
  const deadline = Date.now() + 240_000;
  while (!(await fetch(`${origin}/readyz`).then((res) => res.status === 200, () => false))) {
    if (exited || Date.now() > deadline) {
      if (!exited) process.kill(-child.pid!, "SIGKILL");
      throw new Error(`npm start did not get ready:\n${output.slice(-4000)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const pid = Number(/"pid":(\d+)/.exec(output)?.[1]);
  return {
    origin,
    pid,
    demo: JSON.parse(readFileSync(path.join(dataDir, "demo.json"), "utf8")) as Demo,
    async stop() {
      try {
        process.kill(pid, "SIGTERM");
      } catch {
        /* gone */
      }
      const timer = setTimeout(() => process.kill(-child.pid!, "SIGKILL"), 30_000);
      await exit;
      clearTimeout(timer);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The resident memory of a process, from /proc (bytes). */
export function residentBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024;
}
