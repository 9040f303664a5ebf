/**
 * The boundary between the process's module graphs (docs/deploy.md, "One process, several module graphs"), checked on
 * the build `npm start` runs: every library whose classes or state must be one per process is loaded by Next's
 * bundles from node_modules (an external, the same module the custom server imports), never bundled as a copy of its
 * own. A bundled drizzle-orm made chained bulk enrollment fail in the built app (2026-11-27): the transaction object
 * came from one copy, the class it was checked against from another.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import nextConfig from "@/next.config";
import { ROOT, assertBuilt } from "./harness";

const APP_DIR = process.env.ASSEMBLY_APP_DIR ? path.resolve(process.env.ASSEMBLY_APP_DIR) : ROOT;

/** Libraries the app relies on being one per process (their classes are checked, or they hold process-wide state). */
const ONE_PER_PROCESS = ["drizzle-orm", "postgres", "rate-limiter-flexible", "inngest", "pino", "prom-client", "ws"];

function serverChunks(): string[] {
  const chunks: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith(".js")) chunks.push(full);
    }
  };
  walk(path.join(APP_DIR, ".next/server"));
  return chunks;
}

describe("one copy of each identity-bearing library in the built app", () => {
  it("next.config.ts declares them external", () => {
    expect(nextConfig.serverExternalPackages).toEqual(expect.arrayContaining(ONE_PER_PROCESS));
  });

  it("no server bundle carries its own copy of drizzle-orm (its classes are named by an entityKind string)", () => {
    assertBuilt();
    const bundled = serverChunks().filter((file) => /="PgTransaction"|="PgDatabase"|="PostgresJsSession"/.test(readFileSync(file, "utf8")));
    expect(bundled.map((file) => path.relative(APP_DIR, file))).toEqual([]);
  });

  it("the bundles load them from node_modules (linked under .next/node_modules)", () => {
    assertBuilt();
    const linked = readdirSync(path.join(APP_DIR, ".next/node_modules"));
    for (const name of ["drizzle-orm", "postgres", "rate-limiter-flexible", "inngest", "pino", "prom-client"]) {
      expect(linked.some((entry) => entry.startsWith(`${name}-`)), `${name} is external`).toBe(true);
    }
  });
});
