import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { findFreePort, startEmbeddedPostgres } from "@/db/embedded";
import { runMigrations } from "@/db/migrate";

/** A throwaway embedded Postgres for one benchmark run; `stop()` removes it. */
/** `postgresFlags`: extra server settings, e.g. `["-c", "shared_preload_libraries=pg_stat_statements"]`. */
export async function startBenchDatabase(postgresFlags: string[] = []) {
  const dir = mkdtempSync(path.join(os.tmpdir(), "ocs-bench-"));
  const pg = await startEmbeddedPostgres(dir, { postgresFlags });
  await runMigrations(pg.url);
  return {
    url: pg.url,
    dir,
    stop: async () => {
      await pg.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Starts the built app exactly as `npm start` does (scripts/start.ts) against the given database; builds first if needed. */
export async function startNextApp(databaseUrl: string, dataDir: string): Promise<{ url: string; pid: number; stop: () => Promise<void> }> {
  if (!existsSync(path.resolve(".next/BUILD_ID"))) {
    await run(process.execPath, [path.resolve("node_modules/next/dist/bin/next"), "build"]);
  }
  const port = await findFreePort();
  // No demo seed: embedded mode seeds on a first start (a simulated call history through the call engine), which
  // takes minutes on a loaded machine and has nothing to do with what a bench measures. An existing demo.json skips it.
  const demoFile = path.join(dataDir, "demo.json");
  if (!existsSync(demoFile)) writeFileSync(demoFile, JSON.stringify({ baseUrl: "", dashboard: { url: "", users: [] }, organizations: [] }));
  // BENCH_APP_NODE_ARGS: extra node flags for the app process, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof".
  const extraArgs = (process.env.BENCH_APP_NODE_ARGS ?? "").split(" ").filter(Boolean);
  // The node flags of `npm start` (package.json) and the Dockerfile: a 32 MB semi-space (fewer young-generation GCs).
  const child: ChildProcess = spawn(process.execPath, ["--max-semi-space-size=32", ...extraArgs, "--import", "tsx", path.resolve("scripts/start.ts")], {
    env: { ...process.env, DATABASE_URL: databaseUrl, DATA_DIR: dataDir, PORT: String(port), NODE_ENV: "production", NEXTAUTH_SECRET: "bench", NEXTAUTH_URL: `http://127.0.0.1:${port}`, EMBEDDED_MODE: "1" },
    stdio: ["ignore", "ignore", "inherit"],
    detached: false,
  });
  const url = `http://127.0.0.1:${port}`;
  let exited: number | null = null;
  child.once("exit", (code) => (exited = code ?? -1));
  // Up to 90 s: on this shared 2-core machine under load, Next's preparation alone can take 20 s and more.
  for (let i = 0; ; i++) {
    try {
      await request(`${url}/api/v1/openapi.json`, {});
      break;
    } catch (error) {
      if (exited !== null) throw new Error(`the app exited with code ${exited} before answering`);
      if (i >= 900) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  await waitUntilSettled(child.pid!);
  return {
    url,
    pid: child.pid!,
    stop: async () => {
      child.kill("SIGTERM");
      await new Promise((resolve) => child.once("exit", resolve));
    },
  };
}

/**
 * Until the process's own CPU use stays under 10 % for half a second (at most 60 s). Answering is not the end of
 * the app's start: Next.js loads every page module in the background after it listens (preloadEntriesOnStart),
 * seconds of CPU on a loaded 2-core machine that would otherwise be counted against the first requests measured.
 */
/** CPU time (user + system) a process has used so far, in ms; NaN when /proc does not have it. */
export function processCpuMs(pid: number): number {
  if (!existsSync(`/proc/${pid}/stat`)) return NaN;
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime + stime, in clock ticks of 10 ms
}

/** The processes a process started (children, their children, ...), from /proc; empty where /proc does not have them. */
export function descendantPids(pid: number): number[] {
  const found: number[] = [];
  const visit = (parent: number) => {
    const tasks = `/proc/${parent}/task`;
    if (!existsSync(tasks)) return;
    for (const task of readdirSync(tasks)) {
      const file = `${tasks}/${task}/children`;
      if (!existsSync(file)) continue;
      for (const child of readFileSync(file, "utf8").split(" ").filter(Boolean).map(Number)) {
        found.push(child);
        visit(child);
      }
    }
  };
  visit(pid);
  return found;
}

/** CPU ms used so far by each process the given one started (the voice simulator's process, in the app's case). */
export function descendantCpuMs(pid: number): Map<number, number> {
  return new Map(descendantPids(pid).map((child) => [child, processCpuMs(child)]));
}

async function waitUntilSettled(pid: number) {
  const cpuMs = () => processCpuMs(pid);
  if (!existsSync(`/proc/${pid}/stat`)) return;
  const deadline = performance.now() + 60_000;
  let previous = cpuMs();
  while (performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    const current = cpuMs();
    if (current - previous < 50) return;
    previous = current;
  }
}

function run(command: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: "inherit" });
    child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`${command} exited ${code}`))));
  });
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

export function request(url: string, headers: Record<string, string>, options: { method?: string; body?: string } = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { agent, headers, method: options.method ?? "GET" }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }));
    });
    req.on("error", reject);
    if (options.body) req.write(options.body);
    req.end();
  });
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export type DialedRow = { scheduled_at: Date; dialed_at: Date | null; slot: Date | null };

/**
 * Dispatch lag in seconds, sorted: against the rate-limited schedule (slot k = max(due k, slot k−1 + 1/rate), compared
 * with the k-th dial, so the figure means the same before and after calls recorded their slot) and against each call's
 * recorded slot (dialedAt − max(dueAt, dial_slot_at)). Due times earlier than `notBefore` count from it.
 */
export function dialLags(rows: DialedRow[], ratePerSecond: number, notBefore = -Infinity): { lags: number[]; slotLags: number[] } {
  const dues = rows.map((row) => Math.max(row.scheduled_at.getTime(), notBefore)).sort((a, b) => a - b);
  const dials = rows.filter((row) => row.dialed_at).map((row) => row.dialed_at!.getTime()).sort((a, b) => a - b);
  const schedule: number[] = [];
  for (const due of dues) schedule.push(Math.max(due, (schedule.at(-1) ?? -Infinity) + 1000 / ratePerSecond));
  const lags = dials.map((dial, k) => (dial - schedule[k]!) / 1000).sort((a, b) => a - b);
  const slotLags = rows
    .filter((row) => row.dialed_at && row.slot)
    .map((row) => (row.dialed_at!.getTime() - Math.max(row.scheduled_at.getTime(), row.slot!.getTime())) / 1000)
    .sort((a, b) => a - b);
  return { lags, slotLags };
}

/** Closed loop: `concurrency` workers issue requests back to back for `durationMs`. */
export async function closedLoop(durationMs: number, concurrency: number, fire: (i: number) => Promise<number>) {
  const latencies: number[] = [];
  let errors = 0;
  let counter = 0;
  const end = performance.now() + durationMs;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        const start = performance.now();
        const status = await fire(counter++);
        latencies.push(performance.now() - start);
        if (status !== 200) errors++;
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  return { rps: latencies.length / (durationMs / 1000), p50: percentile(latencies, 50), p99: percentile(latencies, 99), errors, count: latencies.length };
}

/** Open loop: requests started at a fixed rate regardless of responses (latency as a client at that rate sees it). */
export async function openLoop(rate: number, durationMs: number, fire: (i: number) => Promise<number>) {
  const latencies: number[] = [];
  let errors = 0;
  const total = Math.round((rate * durationMs) / 1000);
  const start = performance.now();
  const pending: Array<Promise<void>> = [];
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const sent = performance.now();
    pending.push(
      fire(i).then((status) => {
        latencies.push(performance.now() - sent);
        if (status !== 200) errors++;
      }),
    );
  }
  await Promise.all(pending);
  latencies.sort((a, b) => a - b);
  return { p50: percentile(latencies, 50), p99: percentile(latencies, 99), errors, count: latencies.length };
}

export function fmt(n: number, digits = 1): string {
  return Number.isFinite(n) ? n.toFixed(digits) : "n/a";
}
