import { fork, spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type DbHandle } from "@/db";
import { findFreePort, startEmbeddedPostgres, type EmbeddedDatabase } from "@/db/embedded";
import { runMigrations } from "@/db/migrate";
import { createTestAgent, createTestOrganization } from "../../factories";
import { captureLogs } from "../../helpers/logs";

/**
 * The app in a child process (tests/helpers/app-server-process.ts: `npm start` minus Next.js) on an "external"
 * PostgreSQL — a second cluster of its own, as a managed database would be — and `npm run seed` against such a
 * database: what an operator does in production.
 */
let cluster: EmbeddedDatabase;
let clusterDir: string;
const children = new Set<ChildProcess>();

beforeAll(async () => {
  clusterDir = mkdtempSync(path.join(os.tmpdir(), "ops-external-pg-"));
  cluster = await startEmbeddedPostgres(clusterDir);
}, 120_000);

afterAll(async () => {
  for (const child of children) child.kill("SIGKILL");
  await cluster?.stop().catch(() => {});
  rmSync(clusterDir, { recursive: true, force: true });
});

/** A fresh database on the external cluster. */
async function createDatabase(name: string): Promise<string> {
  const admin = postgres(cluster.url, { max: 1, onnotice: () => {} });
  await admin.unsafe(`drop database if exists ${name}`);
  await admin.unsafe(`create database ${name}`);
  await admin.end({ timeout: 1 });
  const url = new URL(cluster.url);
  url.pathname = `/${name}`;
  return url.toString();
}

/** The production settings of an instance on an external database (server/config/env.ts requires them). */
function productionEnv(databaseUrl: string, dataDir: string, port: number, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    NODE_ENV: "production",
    DATABASE_URL: databaseUrl,
    DATA_DIR: dataDir,
    PORT: String(port),
    APP_BASE_URL: `http://127.0.0.1:${port}`,
    NEXTAUTH_URL: `http://127.0.0.1:${port}`,
    NEXTAUTH_SECRET: "ops-test-nextauth-secret-0123456789abcdef",
    APP_SECRET: "ops-test-app-secret-0123456789abcdef",
    APP_ENCRYPTION_KEY: Buffer.alloc(32, 9).toString("base64"),
    EMBEDDED_MODE: "",
    SEED_DEMO: "",
    SHUTDOWN_TIMEOUT_SECONDS: "20",
    ...extra,
  };
}

function startApp(env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; exited: Promise<number | null> }> {
  const child = fork(path.resolve("tests/helpers/app-server-process.ts"), [], { execArgv: ["--import", "tsx"], env, stdio: ["ignore", "inherit", "inherit", "ipc"] });
  children.add(child);
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => (children.delete(child), resolve(code))));
  return new Promise((resolve, reject) => {
    child.once("message", () => resolve({ child, exited }));
    void exited.then((code) => reject(new Error(`the app exited with ${code} before listening`)));
  });
}

async function waitFor<T>(what: string, probe: () => Promise<T | null | undefined | false>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe("graceful shutdown", () => {
  let handle: DbHandle;
  afterAll(() => handle?.close());

  it("a SIGTERM right after a 1,000-contact bulk 202 loses nothing: after a restart every sequence exists exactly once", async () => {
    const url = await createDatabase("sigterm_bulk");
    await runMigrations(url);
    handle = createDb(url, { max: 2 });
    const { organization, apiKey } = await createTestOrganization(handle.db, { monthlyCreditAllocation: 5_000 });
    const agent = await createTestAgent(handle.db, organization.id, { inputVariables: [{ slug: "company_name", required: true }] });
    const dataDir = mkdtempSync(path.join(os.tmpdir(), "ops-sigterm-"));
    const port = await findFreePort();
    const env = productionEnv(url, dataDir, port);
    const base = `http://127.0.0.1:${port}`;

    const first = await startApp(env);
    await waitFor("readiness", async () => (await fetch(`${base}/readyz`)).status === 200);
    // Due in two days: the test is about materialization, not dialing.
    const scheduledAt = new Date(Date.now() + 2 * 86_400_000).toISOString();
    const contacts = Array.from({ length: 1000 }, (_, i) => ({
      name: `Contact ${i}`,
      phoneNumber: `+1212555${String(i).padStart(4, "0")}`,
      company_name: `Company ${i}`,
      scheduledAt,
    }));
    const logs = captureLogs();
    const accepted = await fetch(`${base}/api/v1/agents/${agent.id}/schedule/sequences`, {
      method: "POST",
      headers: { "x-api-key": apiKey, "content-type": "application/json" },
      body: JSON.stringify({ contacts }),
    });
    expect(accepted.status).toBe(202);
    first.child.kill("SIGTERM");
    expect(await first.exited).toBe(0);
    const shutdownLines = logs.lines().filter((line) => line.component === "shutdown").map((line) => line.msg);
    expect(shutdownLines[0]).toMatch(/^shutting down: readiness is 503/);
    expect(shutdownLines.at(-1)).toBe("shut down");
    const [{ count: afterStop }] = await handle.sql<[{ count: number }]>`select count(*)::int as count from sequences where agent_id = ${agent.id}`;
    expect(afterStop).toBeLessThanOrEqual(1000);

    const second = await startApp(env);
    await waitFor("the batch to complete", async () => {
      const [batch] = await handle.sql<[{ status: string }?]>`select status from bulk_batches where agent_id = ${agent.id}`;
      return batch?.status === "completed";
    });
    const [totals] = await handle.sql<[{ sequences: number; contacts: number; calls: number; firstCalls: number }]>`
      select (select count(*) from sequences where agent_id = ${agent.id})::int as sequences,
             (select count(distinct batch_index) from sequences where agent_id = ${agent.id})::int as contacts,
             (select count(*) from calls c join sequences s on s.id = c.sequence_id where s.agent_id = ${agent.id})::int as calls,
             (select count(distinct c.sequence_id) from calls c join sequences s on s.id = c.sequence_id where s.agent_id = ${agent.id})::int as "firstCalls"`;
    expect(totals).toEqual({ sequences: 1000, contacts: 1000, calls: 1000, firstCalls: 1000 });
    second.child.kill("SIGTERM");
    expect(await second.exited).toBe(0);
    rmSync(dataDir, { recursive: true, force: true });
  }, 300_000);
});

describe("npm run seed against an external PostgreSQL", () => {
  it("seeds the demo data (calendar booking included) and prints only JSON on stdout", async () => {
    const url = await createDatabase("seed_external");
    const dataDir = mkdtempSync(path.join(os.tmpdir(), "ops-seed-"));
    const port = await findFreePort();
    const child = spawn("npm", ["run", "--silent", "seed", "--", "--json"], { env: productionEnv(url, dataDir, port), stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    expect(code, stderr).toBe(0);
    const result = JSON.parse(stdout) as { organizations: Array<{ key: string; orgId: string; apiKey: string }>; dashboard: { users: unknown[] } };
    expect(result.organizations.length).toBeGreaterThan(0);
    expect(result.organizations[0]!.apiKey).toMatch(/^ock_/);
    expect(stderr).not.toContain("could not be reached");

    const sql = postgres(url, { max: 1, onnotice: () => {} });
    const [counts] = await sql<[{ organizations: number; connections: number; booked: number; calls: number }]>`
      select (select count(*) from organizations)::int as organizations,
             (select count(*) from provider_connections)::int as connections,
             (select count(*) from agents where booking_config is not null)::int as booked,
             (select count(*) from calls)::int as calls`;
    await sql.end({ timeout: 1 });
    expect(counts.organizations).toBeGreaterThan(0);
    expect(counts.connections).toBeGreaterThan(0);
    expect(counts.booked).toBeGreaterThan(0);
    expect(counts.calls).toBeGreaterThan(0);
    rmSync(dataDir, { recursive: true, force: true });
  }, 300_000);

  it("SEED_DEMO=1 seeds an instance on an external database at its first start", async () => {
    const url = await createDatabase("seed_demo_flag");
    const dataDir = mkdtempSync(path.join(os.tmpdir(), "ops-seed-demo-"));
    const port = await findFreePort();
    const app = await startApp(productionEnv(url, dataDir, port, { SEED_DEMO: "1" }));
    expect(existsSync(path.join(dataDir, "demo.json"))).toBe(true);
    const demo = JSON.parse(readFileSync(path.join(dataDir, "demo.json"), "utf8")) as { organizations: Array<{ orgId: string; apiKey: string }> };
    const org = demo.organizations[0]!;
    const res = await fetch(`http://127.0.0.1:${port}/api/v1/agents?orgId=${org.orgId}`, { headers: { "x-api-key": org.apiKey } });
    expect(res.status).toBe(200);
    app.child.kill("SIGTERM");
    expect(await app.exited).toBe(0);
    rmSync(dataDir, { recursive: true, force: true });
  }, 300_000);
});

describe("readiness of a running instance", () => {
  // Last in this file: it stops the external cluster.
  it("turns 503 naming the database when the database stops, and the process keeps answering /healthz", async () => {
    const url = await createDatabase("readiness_process");
    await runMigrations(url);
    const dataDir = mkdtempSync(path.join(os.tmpdir(), "ops-readyz-data-"));
    const port = await findFreePort();
    const app = await startApp(productionEnv(url, dataDir, port));
    const base = `http://127.0.0.1:${port}`;
    await waitFor("readiness", async () => (await fetch(`${base}/readyz`)).status === 200);
    await cluster.stop();
    const down = await fetch(`${base}/readyz`);
    expect(down.status).toBe(503);
    expect(await down.json()).toMatchObject({ status: "unavailable", failing: expect.arrayContaining(["database"]), checks: { database: "unreachable" } });
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    app.child.kill("SIGKILL");
    await app.exited;
    rmSync(dataDir, { recursive: true, force: true });
  }, 300_000);
});
