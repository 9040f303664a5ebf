/**
 * CPU per request of the `/api/v1` read path, in one process and without Next.js: the production request handling
 * (`createHttpServer` from server/http/node-server.ts: request id, log line, metrics, the /api/v1 edge, tRPC) against
 * a bare Node server running the same outcomes query, both driven by the same keep-alive client in this process.
 * The difference of the two CPU figures is what the stack adds to each request — a steadier figure than requests/s
 * on a shared machine (bench/read-path.ts measures the goal itself; this one is for finding and checking cuts).
 *
 * Run: npx tsx bench/read-path-cpu.ts > /dev/null   (the app's request log goes to stdout; figures go to stderr)
 * Profile: BENCH_ONLY=app node --cpu-prof --import tsx bench/read-path-cpu.ts > /dev/null
 */
import http from "node:http";
import { createDb } from "@/db";
import { findFreePort } from "@/db/embedded";
import { listOutcomes } from "@/server/services/agents/list-definitions";
import { createAgent } from "@/server/services/agents/create-agent";
import { createApiKey } from "@/server/services/api-keys/manage-api-keys";
import { createOrganization } from "@/server/services/organizations/create-organization";
import { fmt, request, startBenchDatabase } from "./lib/harness";

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 6000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** `BENCH_ONLY=app`: only the app's requests (to profile the stack alone). */
const ONLY_APP = process.env.BENCH_ONLY === "app";

type Sql = ReturnType<typeof createDb>["sql"];

/** Statements the database committed (each autocommit statement is one transaction). */
async function committed(sql: Sql): Promise<number> {
  const [row] = await sql`select xact_commit::bigint as n from pg_stat_database where datname = current_database()`;
  return Number(row!.n);
}

async function cpuPerRequest(sql: Sql, count: number, fire: (i: number) => Promise<number>) {
  // pg_stat_database is updated when a backend reports (at most every 500 ms / at transaction end when idle).
  await new Promise((resolve) => setTimeout(resolve, 1100));
  const statementsBefore = await committed(sql);
  let next = 0;
  let errors = 0;
  const before = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < count) {
        if ((await fire(next++)) !== 200) errors++;
      }
    }),
  );
  const used = process.cpuUsage(before);
  const elapsedMs = performance.now() - started;
  await new Promise((resolve) => setTimeout(resolve, 1100));
  const statements = (await committed(sql)) - statementsBefore - 1;
  return { cpuUs: (used.user + used.system) / count, rps: count / (elapsedMs / 1000), errors, statementsPerRequest: statements / count };
}

async function main() {
  const database = await startBenchDatabase();
  // The environment scripts/start.ts gives the app in embedded mode (as bench/lib/harness.ts starts it).
  Object.assign(process.env, { DATABASE_URL: database.url, DATA_DIR: database.dir, NODE_ENV: "production", EMBEDDED_MODE: "1", NEXTAUTH_SECRET: "bench", NEXTAUTH_URL: "http://127.0.0.1" });
  const handle = createDb(database.url, { max: 10 });
  const org = await createOrganization(handle.db, { name: "Bench" });
  const agent = await createAgent(handle.db, { organizationId: org.id, name: "Bench agent", outcomes: [{ name: "Booked" }, { name: "Interested" }, { name: "Not interested" }] });
  const keys: string[] = [];
  for (let i = 0; i < 400; i++) keys.push((await createApiKey(handle.db, { organizationId: org.id, name: `bench ${i}` })).key);

  const { createHttpServer } = await import("@/server/http/node-server");
  const app = createHttpServer({ handleNext: (_req, res) => res.writeHead(404).end() });
  const bare = http.createServer(async (_req, res) => {
    const body = await listOutcomes(handle.db, { organizationId: org.id, agentId: agent.id });
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  });
  const [appPort, barePort] = [await findFreePort(), await findFreePort()];
  await new Promise<void>((resolve) => app.listen(appPort, "127.0.0.1", resolve));
  await new Promise<void>((resolve) => bare.listen(barePort, "127.0.0.1", resolve));
  const appUrl = `http://127.0.0.1:${appPort}/api/v1/agents/${agent.id}/outcomes`;
  const bareUrl = `http://127.0.0.1:${barePort}/outcomes`;
  // Like bench/read-path.ts: 400 keys, so the per-key limit (10 rps) admits everything while still running.
  const fireApp = async (i: number) => (await request(appUrl, { "x-api-key": keys[i % keys.length]! })).status;
  const fireBare = async () => (await request(bareUrl, {})).status;
  const check = await request(appUrl, { "x-api-key": keys[0]! });
  if (check.status !== 200) throw new Error(`app answered ${check.status}: ${check.body}`);

  await cpuPerRequest(handle.sql, 2000, fireBare);
  await cpuPerRequest(handle.sql, 2000, fireApp);
  for (let round = 1; round <= ROUNDS; round++) {
    const base = ONLY_APP ? { cpuUs: NaN, rps: NaN, errors: 0, statementsPerRequest: NaN } : await cpuPerRequest(handle.sql, REQUESTS, fireBare);
    // The limiter's one-second windows of the previous round close first.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const full = await cpuPerRequest(handle.sql, REQUESTS, fireApp);
    console.error(
      `round ${round}: bare ${fmt(base.cpuUs, 0)} µs CPU/request (${fmt(base.rps, 0)} req/s), app ${fmt(full.cpuUs, 0)} µs (${fmt(full.rps, 0)} req/s), ` +
        `added by the stack ${fmt(full.cpuUs - base.cpuUs, 0)} µs; database statements per request ${fmt(base.statementsPerRequest, 2)} / ${fmt(full.statementsPerRequest, 2)}; errors ${base.errors}/${full.errors}`,
    );
    await new Promise((resolve) => setTimeout(resolve, 1100));
  }
  app.close();
  bare.close();
  await handle.close();
  await database.stop();
  process.exit(0);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
