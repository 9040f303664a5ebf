import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { createDb } from "@/db";
import { startEmbeddedPostgres, type EmbeddedDatabase } from "@/db/embedded";
import { runMigrations } from "@/db/migrate";
import { ConfigError, getConfig, reloadConfig } from "@/server/config/env";
import { dataDir, isEmbeddedMode } from "@/server/config/settings";
import { seedDemo, type SeedResult } from "@/server/seed/demo-seed";

/** DATABASE_URL when set (production); otherwise the embedded cluster in $DATA_DIR, started or reused. Migrated. */
export async function resolveDatabase(log: (line: string) => void = () => {}): Promise<{ url: string; embedded: EmbeddedDatabase | null }> {
  const external = getConfig().DATABASE_URL;
  if (external) {
    await runMigrations(external);
    return { url: external, embedded: null };
  }
  const embedded = await startEmbeddedPostgres(dataDir(), { log });
  await runMigrations(embedded.url);
  return { url: embedded.url, embedded };
}

/** A secret generated once into $DATA_DIR (embedded mode only; production passes it in the environment). */
export function persistentSecret(name: string, bytes = 32): string {
  const dir = dataDir();
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, name);
  if (existsSync(file)) return readFileSync(file, "utf8").trim();
  const value = randomBytes(bytes).toString("base64url");
  writeFileSync(file, value, { mode: 0o600 });
  return value;
}

export function parseFlag(argv: string[], name: string): string | undefined {
  const index = argv.indexOf(name);
  if (index >= 0) return argv[index + 1];
  const prefixed = argv.find((arg) => arg.startsWith(`${name}=`));
  return prefixed?.slice(name.length + 1);
}

/** Seeds once per data directory (embedded) or when SEED_DEMO=1; remembers the printed credentials in $DATA_DIR/demo.json. */
export async function ensureDemoData(databaseUrl: string, baseUrl: string): Promise<SeedResult | null> {
  const file = path.join(dataDir(), "demo.json");
  if (existsSync(file)) return JSON.parse(readFileSync(file, "utf8")) as SeedResult;
  if (!isEmbeddedMode() && !getConfig().SEED_DEMO) return null;
  const handle = createDb(databaseUrl, { max: 4 });
  try {
    const result = await seedDemo(handle.db, { baseUrl });
    writeFileSync(file, JSON.stringify(result, null, 2), { mode: 0o600 });
    return result;
  } finally {
    await handle.close();
  }
}

/**
 * Reads the configuration again (process.env as it is now) and, when a setting is bad, exits with the one message
 * listing every problem — on stderr in plain text, before the logger exists (its own settings may be the bad ones).
 */
export function validateConfiguration(): void {
  try {
    reloadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
}
