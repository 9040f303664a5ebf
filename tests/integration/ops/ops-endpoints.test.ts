import { mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import postgres from "postgres";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startEmbeddedPostgres, type EmbeddedDatabase } from "@/db/embedded";
import { runMigrations } from "@/db/migrate";
import { createHttpServer } from "@/server/http/node-server";
import { markShuttingDown, resetLifecycleForTests } from "@/server/runtime/lifecycle";
import { checkReadiness } from "@/server/runtime/readiness";
import { callsOf, createEngineOrganization, startCallEngine, type CallEngineHarness } from "../call-engine/harness";
import { useTestDb } from "../../helpers/db";
import { captureLogs, type LogLine } from "../../helpers/logs";

/**
 * The operator endpoints and the request log of the production server (server/http/node-server.ts, Next.js stubbed)
 * in this process: /healthz, /readyz (503 naming the failing check: shutdown, database, migrations, background),
 * /metrics (loopback or bearer; the named series after one enrolled call), X-Request-Id and the request log line.
 */
const db = useTestDb();

type Answer = { status: number; headers: http.IncomingHttpHeaders; text: string; json: () => any };

function request(server: http.Server, target: string, options: { method?: string; headers?: Record<string, string>; body?: unknown } = {}): Promise<Answer> {
  const { port } = server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const body = options.body === undefined ? undefined : JSON.stringify(options.body);
    const req = http.request(
      { host: "127.0.0.1", port, path: target, method: options.method ?? "GET", headers: { ...(body ? { "content-type": "application/json" } : {}), ...options.headers } },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (text += chunk));
        res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, text, json: () => JSON.parse(text) }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

async function listen(options: Parameters<typeof createHttpServer>[0]["ops"] = undefined): Promise<http.Server> {
  const server = createHttpServer({
    handleNext: (_req, res) => {
      res.statusCode = 404;
      res.end("next");
    },
    ops: options,
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return server;
}

const servers: http.Server[] = [];
async function startServer(options?: Parameters<typeof listen>[0]) {
  const server = await listen(options);
  servers.push(server);
  return server;
}

afterEach(() => resetLifecycleForTests());
afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

describe("/healthz and /readyz", () => {
  let scratch: EmbeddedDatabase | null = null;
  let scratchDir = "";
  beforeAll(async () => {
    // A cluster of its own that the test can stop (the suite's is shared by every test file).
    scratchDir = mkdtempSync(path.join(os.tmpdir(), "ops-readyz-"));
    scratch = await startEmbeddedPostgres(scratchDir);
    await runMigrations(scratch.url);
  }, 120_000);
  afterAll(async () => {
    await scratch?.stop().catch(() => {});
    rmSync(scratchDir, { recursive: true, force: true });
  });

  it("/healthz answers 200 without a key, with a request ID", async () => {
    const server = await startServer();
    const res = await request(server, "/healthz");
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ status: "ok" });
    expect(res.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.headers["cache-control"]).toBe("no-store");
  });

  it("/readyz is 200 while every check passes and 503 naming the database once it stops, with no internals", async () => {
    const sql = postgres(scratch!.url, { max: 1, connect_timeout: 2, idle_timeout: 5, onnotice: () => {} });
    const server = await startServer({ readiness: () => checkReadiness({ sql, backgroundReady: () => true }) });
    const ready = await request(server, "/readyz");
    expect(ready.status).toBe(200);
    expect(ready.json()).toEqual({ status: "ready", checks: { shutdown: "ok", database: "ok", migrations: "ok", background: "ok" } });

    await scratch!.stop();
    const down = await request(server, "/readyz");
    expect(down.status).toBe(503);
    expect(down.json()).toEqual({ status: "unavailable", failing: ["database", "migrations"], checks: { shutdown: "ok", database: "unreachable", migrations: "unknown", background: "ok" } });
    // No error text, host, port or version in the answer.
    expect(down.text).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|postgres|\d{4,5}/i);
    // Liveness does not depend on the database.
    expect((await request(server, "/healthz")).status).toBe(200);
    await sql.end({ timeout: 1 });
  });

  it("/readyz names pending migrations, a background runner that is not started, and a shutdown in progress", async () => {
    const server = await startServer();
    // This process runs no embedded runner: the default background check fails.
    const noRunner = await request(server, "/readyz");
    expect(noRunner.status).toBe(503);
    expect(noRunner.json()).toMatchObject({ failing: ["background"], checks: { database: "ok", migrations: "ok", background: "runner not started" } });

    markShuttingDown();
    const stopping = await request(server, "/readyz");
    expect(stopping.status).toBe(503);
    expect(stopping.json().failing).toEqual(["shutdown", "background"]);
    expect(stopping.headers.connection).toBe("close");
    resetLifecycleForTests();

    const admin = postgres(String(process.env.DATABASE_URL), { max: 1, onnotice: () => {} });
    const name = `unmigrated_${process.pid}`;
    await admin.unsafe(`drop database if exists ${name}`);
    await admin.unsafe(`create database ${name}`);
    const url = new URL(String(process.env.DATABASE_URL));
    url.pathname = `/${name}`;
    const unmigrated = postgres(url.toString(), { max: 1, onnotice: () => {} });
    const pending = await startServer({ readiness: () => checkReadiness({ sql: unmigrated, backgroundReady: () => true }) });
    const res = await request(pending, "/readyz");
    expect(res.status).toBe(503);
    expect(res.json()).toMatchObject({ failing: ["migrations"], checks: { database: "ok", migrations: "pending" } });
    await unmigrated.end({ timeout: 1 });
    await admin.unsafe(`drop database if exists ${name}`);
    await admin.end({ timeout: 1 });
  });

  it("answers 405 to other methods and is never rate-limited", async () => {
    const server = await startServer();
    expect((await request(server, "/healthz", { method: "POST" })).status).toBe(405);
    const answers = await Promise.all(Array.from({ length: 60 }, () => request(server, "/healthz")));
    expect(answers.every((res) => res.status === 200)).toBe(true);
  });
});

describe("request IDs and the request log line", () => {
  it("one line per request: method, route template, status, duration, request ID, org and key prefix — never the key", async () => {
    const server = await startServer();
    const { apiKey, organization, agent } = await createEngineOrganization(db);
    const logs = captureLogs();
    const ok = await request(server, `/api/v1/agents/${agent.id}/outcomes`, { headers: { "x-api-key": apiKey, "x-request-id": "trace-abc.123" } });
    expect(ok.status).toBe(200);
    expect(ok.headers["x-request-id"]).toBe("trace-abc.123");
    const lines = logs.lines().filter((line) => line.component === "http");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toEqual({
      level: "info",
      time: expect.any(String),
      pid: expect.any(Number),
      hostname: expect.any(String),
      component: "http",
      reqId: "trace-abc.123",
      method: "GET",
      route: "/api/v1/agents/{agentId}/outcomes",
      status: 200,
      durationMs: expect.any(Number),
      orgId: organization.orgId,
      keyPrefix: apiKey.slice(0, 12),
      msg: "request",
    } satisfies Partial<LogLine> & Record<string, unknown>);
    expect(logs.text()).not.toContain(apiKey);
    expect(logs.text()).not.toContain(agent.id);
  });

  it("error responses are logged with their request ID; a bad X-Request-Id is replaced by a generated one", async () => {
    const server = await startServer();
    const logs = captureLogs();
    const refused = await request(server, "/api/v1/agents", { headers: { "x-api-key": `ock_${"x".repeat(40)}`, "x-request-id": "client-7" } });
    expect(refused.status).toBe(401);
    expect(refused.headers["x-request-id"]).toBe("client-7");
    const unsafe = await request(server, "/api/v1/agents", { headers: { "x-request-id": `a b<script>${"z".repeat(200)}` } });
    expect(unsafe.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
    const lines = logs.lines().filter((line) => line.component === "http");
    expect(lines.map((line) => [line.reqId, line.status, line.route])).toEqual([
      ["client-7", 401, "/api/v1/agents"],
      [unsafe.headers["x-request-id"], 401, "/api/v1/agents"],
    ]);
    expect(lines[0]).not.toHaveProperty("orgId");
    expect(logs.text()).not.toContain("x".repeat(40));
  });
});

describe("/metrics", () => {
  let engine: CallEngineHarness | null = null;
  afterAll(async () => {
    await engine?.stop();
    delete process.env.METRICS_TOKEN;
  });

  it("is served to loopback clients only, not through a proxy, unless METRICS_TOKEN is set (then bearer)", async () => {
    const server = await startServer();
    expect((await request(server, "/metrics")).status).toBe(200);
    const proxied = await request(server, "/metrics", { headers: { "x-forwarded-for": "203.0.113.9" } });
    expect(proxied.status).toBe(403);
    expect(proxied.json()).toMatchObject({ error: "FORBIDDEN" });
    process.env.METRICS_TOKEN = "metrics-token-0123456789abcdef";
    expect((await request(server, "/metrics")).status).toBe(401);
    expect((await request(server, "/metrics", { headers: { authorization: "Bearer wrong-token-0123456789abcdef" } })).status).toBe(401);
    expect((await request(server, "/metrics", { headers: { authorization: "Bearer metrics-token-0123456789abcdef", "x-forwarded-for": "203.0.113.9" } })).status).toBe(200);
    delete process.env.METRICS_TOKEN;
  });

  it("exposes the named series after one enrolled call", async () => {
    const server = await startServer();
    engine = await startCallEngine(db, { start: new Date() });
    const { apiKey, agent } = await createEngineOrganization(db);
    const enrolled = await request(server, `/api/v1/agents/${agent.id}/schedule/sequence`, {
      method: "POST",
      headers: { "x-api-key": apiKey },
      body: { name: "Ada", phoneNumber: "+12025550381", company_name: "Acme", crm_ref: "M-1", timezone: "America/New_York" },
    });
    expect(enrolled.status).toBe(201);
    // The call is due now (the API's clock); the engine's clock catches up and the simulator answers it.
    await engine.advance(60_000);
    const [call] = await callsOf(db, enrolled.json().sequence.sequenceId);
    expect(call!.resultType).not.toMatch(/^(Scheduled|Calling|Processing Analysis)$/);
    // Past the limit of requests without a key (1/s here, so that a loaded machine cannot spread them out): refused.
    process.env.API_UNAUTHENTICATED_RATE_LIMIT = "1";
    const burst = await Promise.all(Array.from({ length: 5 }, () => request(server, "/api/v1/agents")));
    delete process.env.API_UNAUTHENTICATED_RATE_LIMIT;
    expect(burst.some((res) => res.status === 429)).toBe(true);

    const text = (await request(server, "/metrics")).text;
    const sample = (name: string, labels = "") => {
      const line = text.split("\n").find((candidate) => candidate.startsWith(name) && candidate.includes(labels));
      return line ? Number(line.slice(line.lastIndexOf(" ") + 1)) : undefined;
    };
    expect(sample("http_request_duration_seconds_count", 'route="/api/v1/agents/{agentId}/schedule/sequence",status="201"')).toBe(1);
    expect(sample("calls_finished_total", `result="${call!.resultType}"`)).toBeGreaterThanOrEqual(1);
    expect(sample("call_dial_lag_seconds_count")).toBeGreaterThanOrEqual(1);
    expect(sample("credits_spent_total")).toBeGreaterThanOrEqual(1);
    expect(sample("runner_step_duration_seconds_count", 'function="outbound-calling-dispatch-calls",outcome="completed"')).toBeGreaterThanOrEqual(1);
    expect(sample("rate_limit_rejections_total", 'limit="address"')).toBeGreaterThanOrEqual(1);
    // Read from the database at scrape time (every instance's work).
    for (const state of ["scheduled", "rescheduled", "calling", "processing_analysis"]) expect(sample("calls_in_state", `state="${state}"`)).toBeGreaterThanOrEqual(0);
    expect(sample("runner_queue_depth", 'state="due"')).toBeGreaterThanOrEqual(0);
    expect(sample("runner_queue_lag_seconds")).toBeGreaterThanOrEqual(0);
    // Declared from the start (no delivery in this test: they have no samples yet).
    for (const name of ["webhook_deliveries_total", "webhook_delivery_duration_seconds", "runner_request_duration_seconds"]) {
      expect(text).toContain(`# TYPE ${name} `);
    }
    expect(text).not.toContain(apiKey);
  });
});
