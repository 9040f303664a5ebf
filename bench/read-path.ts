/**
 * Authenticated read path: GET /api/v1/agents/{id}/outcomes through the full stack (the built Next.js app:
 * routing, the /api/v1 wrapper, rate limiter, API-key verification, tRPC, zod output validation) against a bare
 * Node HTTP server running the same outcomes query, measured in one run. Goal (DESIGN §10): ≥ 50 % of the
 * baseline's requests/s; p99 ≤ 25 ms at 500 rps.
 *
 * Run: npx tsx bench/read-path.ts   (builds the app first if there is no build)
 */
import http from "node:http";
import { createDb } from "@/db";
import { findFreePort } from "@/db/embedded";
import { listOutcomes } from "@/server/services/agents/list-definitions";
import { createApiKey } from "@/server/services/api-keys/manage-api-keys";
import { createAgent } from "@/server/services/agents/create-agent";
import { createOrganization } from "@/server/services/organizations/create-organization";
import { closedLoop, fmt, openLoop, request, startBenchDatabase, startNextApp } from "./lib/harness";

const DURATION_MS = Number(process.env.BENCH_DURATION_MS ?? 5000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);

async function main() {
  const database = await startBenchDatabase();
  const handle = createDb(database.url, { max: 10 });
  const org = await createOrganization(handle.db, { name: "Bench" });
  const agent = await createAgent(handle.db, { organizationId: org.id, name: "Bench agent", outcomes: [{ name: "Booked" }, { name: "Interested" }, { name: "Not interested" }] });
  // The API allows 10 rps per key: spread the load over enough keys that the limiter admits everything
  // (the limiter still runs on every request, so its cost is measured).
  const keys: string[] = [];
  for (let i = 0; i < 400; i++) keys.push((await createApiKey(handle.db, { organizationId: org.id, name: `bench ${i}` })).key);

  const basePort = await findFreePort();
  const bare = http.createServer(async (_req, res) => {
    const body = await listOutcomes(handle.db, { organizationId: org.id, agentId: agent.id });
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => bare.listen(basePort, "127.0.0.1", resolve));
  const app = await startNextApp(database.url, database.dir);

  const appUrl = `${app.url}/api/v1/agents/${agent.id}/outcomes`;
  const bareUrl = `http://127.0.0.1:${basePort}/outcomes`;
  const appStatuses = new Map<number, number>();
  const fireApp = async (i: number) => {
    const { status } = await request(appUrl, { "x-api-key": keys[i % keys.length]! });
    appStatuses.set(status, (appStatuses.get(status) ?? 0) + 1);
    return status;
  };
  const fireBare = async () => (await request(bareUrl, {})).status;

  const check = await request(appUrl, { "x-api-key": keys[0]! });
  if (check.status !== 200) throw new Error(`app answered ${check.status}: ${check.body}`);

  await closedLoop(1000, CONCURRENCY, fireBare); // warm-up
  await closedLoop(1000, CONCURRENCY, fireApp);
  const baseline = await closedLoop(DURATION_MS, CONCURRENCY, fireBare);
  const full = await closedLoop(DURATION_MS, CONCURRENCY, fireApp);
  await new Promise((resolve) => setTimeout(resolve, 1100)); // let the one-second rate-limit windows of the last phase close
  const fixedRate = await openLoop(500, DURATION_MS, fireApp);

  console.log("GET /agents/{id}/outcomes — full stack vs bare Node server running the same query");
  console.log(`  baseline (bare node + same query): ${fmt(baseline.rps, 0)} req/s, p50 ${fmt(baseline.p50)} ms, p99 ${fmt(baseline.p99)} ms, errors ${baseline.errors}`);
  console.log(`  full stack (npm start, /api/v1):   ${fmt(full.rps, 0)} req/s, p50 ${fmt(full.p50)} ms, p99 ${fmt(full.p99)} ms, errors ${full.errors}`);
  console.log(`  ratio full/baseline: ${fmt((full.rps / baseline.rps) * 100)} %   (goal ≥ 50 %)`);
  console.log(`  app response statuses: ${JSON.stringify(Object.fromEntries(appStatuses))}`);
  console.log(`  at a fixed 500 req/s: p50 ${fmt(fixedRate.p50)} ms, p99 ${fmt(fixedRate.p99)} ms, errors ${fixedRate.errors}/${fixedRate.count}   (goal p99 ≤ 25 ms)`);

  await app.stop();
  bare.close();
  await handle.close();
  await database.stop();
  process.exit(0);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
