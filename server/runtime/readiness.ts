import { readFileSync } from "node:fs";
import path from "node:path";
import postgres from "postgres";
import { migrationsFolder } from "@/db/migrate";
import { localRunners } from "@/inngest/embedded/transport";
import { resolveInngestMode } from "@/inngest/mode";
import { getConfig } from "@/server/config/env";
import { isInngestRegistered, isShuttingDown, onShutdown } from "./lifecycle";
import { processSingleton } from "./process-singleton";

/**
 * `GET /readyz`: may this instance take traffic? Every check must pass:
 * - `shutdown`: the process is not shutting down (SIGTERM turns this first, see server/runtime/shutdown.ts);
 * - `database`: the database answers `select 1` within 2 s;
 * - `migrations`: the newest committed migration (db/migrations/meta/_journal.json) is applied;
 * - `background`: the embedded Inngest runner of this process is started, or — with Inngest Cloud / self-hosted —
 *   the app's serve endpoint is registered with Inngest (server/runtime/register-inngest.ts).
 * The answer names each check's state in a word; it never carries error messages, hosts or versions.
 */

export type CheckName = "shutdown" | "database" | "migrations" | "background";
export type ReadinessReport = { ready: boolean; checks: Record<CheckName, string> };

const DATABASE_TIMEOUT_MS = 2_000;

let latestMigrationMillis: number | undefined;
function latestMigration(): number {
  latestMigrationMillis ??= Math.max(
    0,
    ...(JSON.parse(readFileSync(path.join(migrationsFolder, "meta", "_journal.json"), "utf8")) as { entries: Array<{ when: number }> }).entries.map((entry) => entry.when),
  );
  return latestMigrationMillis;
}

export type ReadinessOptions = {
  /** A small client of its own (a saturated app pool must not make a healthy database look down). */
  sql: postgres.Sql;
  /** Whether the background part is up; default: this process's runner or Inngest registration. */
  backgroundReady?: () => boolean;
};

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<T>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error("timeout")), ms);
    }),
  ]);
}

export function defaultBackgroundReady(): boolean {
  if (resolveInngestMode(getConfig().raw) === "embedded") return localRunners().length > 0;
  return isInngestRegistered();
}

export async function checkReadiness(options: ReadinessOptions): Promise<ReadinessReport> {
  const checks: Record<CheckName, string> = { shutdown: "ok", database: "ok", migrations: "ok", background: "ok" };
  if (isShuttingDown()) checks.shutdown = "shutting down";
  try {
    const rows = await withTimeout(
      options.sql<Array<{ applied: string | null }>>`
        select (select max(created_at) from drizzle.__drizzle_migrations)::text as applied`,
      DATABASE_TIMEOUT_MS,
    );
    const applied = Number(rows[0]?.applied ?? 0);
    if (applied < latestMigration()) checks.migrations = "pending";
  } catch (error) {
    const missingTable = (error as { code?: string }).code === "42P01" || (error as { code?: string }).code === "3F000";
    if (missingTable) checks.migrations = "pending";
    else {
      checks.database = (error as Error).message === "timeout" ? "timeout" : "unreachable";
      checks.migrations = "unknown";
    }
  }
  if (!(options.backgroundReady ?? defaultBackgroundReady)()) {
    checks.background = resolveInngestMode(getConfig().raw) === "embedded" ? "runner not started" : "not registered with Inngest";
  }
  return { ready: Object.values(checks).every((value) => value === "ok"), checks };
}

/** Process-wide (server/runtime/process-singleton.ts): one client however many module copies ask; unset on shutdown. */
const holder = () => processSingleton("readinessSql", () => ({ sql: undefined as postgres.Sql | undefined }));

/** The readiness client of this process (one connection to DATABASE_URL), closed on shutdown. */
export function readinessSql(): postgres.Sql | null {
  const url = getConfig().DATABASE_URL;
  if (!url) return null;
  const client = holder();
  if (!client.sql) {
    const sql = postgres(url, { max: 1, connect_timeout: 2, idle_timeout: 60, onnotice: () => {} });
    client.sql = sql;
    onShutdown("readiness-database-client", "database", async () => {
      client.sql = undefined;
      await sql.end({ timeout: 1 });
    });
  }
  return client.sql;
}
