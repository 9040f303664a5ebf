/**
 * Agent tests on the embedded default (DESIGN §10 style; issue 25 goal: a run of 20 cases in under 60 s on this
 * machine). One run of 20 test cases of a demo booking agent — five times each of the seed's four cases — played
 * through the embedded Inngest runner (run-agent-tests: waves of 5 cases at once), each case a text conversation
 * between the agent and caller stand-ins of the in-process OpenAI simulator, test-mode booking against the Chili
 * Piper simulator (slots, no booking), the rule-based analyser and the expectations. Prints the time from the run's
 * creation to its completion, and the per-case durations.
 *
 * Run: npx tsx bench/agent-tests.ts   (BENCH_CASES, BENCH_CONCURRENCY to tune)
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";

const DATA_DIR = mkdtempSync(path.join(os.tmpdir(), "ocs-bench-agent-tests-"));
process.env.DATA_DIR = DATA_DIR;
process.env.APP_ENCRYPTION_KEY ??= randomBytes(32).toString("base64");

const CASES = Number(process.env.BENCH_CASES ?? 20);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 5);
const GOAL_MS = 60_000;

async function main() {
  const { createDb } = await import("@/db");
  const { resetConfigForTests } = await import("@/server/config/env");
  const { agentTestCases } = await import("@/db/schema");
  const { inngest } = await import("@/inngest/client");
  const { createEmbeddedRunner } = await import("@/inngest/embedded");
  const { createRunAgentTestsFunction } = await import("@/inngest/functions/run-agent-tests");
  const { seedAgentTestCases } = await import("@/server/seed/agent-test-cases");
  const { demoAgentConfig } = await import("@/server/seed/demo-seed");
  const { createTestRun, getTestRun } = await import("@/server/services/agent-tests/test-runs");
  const { createAgent } = await import("@/server/services/agents/create-agent");
  const { validateBookingConfig } = await import("@/server/services/calendar/booking-config");
  const { connectProvider } = await import("@/server/services/calendar/provider-connection");
  const { simulatorBookingConfig } = await import("@/server/services/calendar/simulator-fixtures");
  const { createOrganization } = await import("@/server/services/organizations/create-organization");
  const { startChiliPiperSimulator } = await import("@/server/simulators/chili-piper");
  const { stopEmbeddedOpenAiSimulator } = await import("@/server/simulators/openai-realtime/embedded");
  const { fmt, percentile, startBenchDatabase } = await import("./lib/harness");

  const database = await startBenchDatabase();
  const handle = createDb(database.url, { max: CONCURRENCY + 8 });
  const db = handle.db;
  const calendar = await startChiliPiperSimulator();
  process.env.CHILI_PIPER_BASE_URL = calendar.url;
  // The settings were read at the first import that needed them: read them again with the simulator's URL.
  resetConfigForTests();

  const organization = await createOrganization(db, { name: "Bench org", monthlyCreditAllocation: 1000 });
  await connectProvider(db, { organizationId: organization.id, apiKey: calendar.createApiKey("full-access") });
  const bookingConfig = await validateBookingConfig(db, { organizationId: organization.id, bookingConfig: simulatorBookingConfig("link") });
  const agent = await createAgent(db, { organizationId: organization.id, ...demoAgentConfig("Link Booking Agent"), bookingConfig });
  for (let seeded = 0; seeded < CASES; seeded += 4) {
    await seedAgentTestCases(db, { organizationId: organization.id, agents: [{ agentId: agent.id, timezone: "America/New_York", hasCalendar: true }], now: new Date(Date.now() + seeded) });
  }
  const caseIds = (await db.select({ id: agentTestCases.id }).from(agentTestCases)).map((row) => row.id).slice(0, CASES);

  const runner = createEmbeddedRunner({
    db,
    functions: [createRunAgentTestsFunction(inngest, { getDb: () => db, now: () => new Date() })],
    autoPoll: true,
    pollIntervalMs: 50,
    concurrency: 4,
    logger: { info: () => {}, warn: console.warn, error: console.error },
  });
  await runner.start();

  const started = performance.now();
  const run = await createTestRun(db, { organizationId: organization.id, agentId: agent.id, testCaseIds: caseIds, concurrency: CONCURRENCY, source: "api", actorUserId: null, now: new Date() });
  let done = run;
  while (done.status !== "completed" && done.status !== "failed" && performance.now() - started < 5 * GOAL_MS) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    done = await getTestRun(db, { organizationId: organization.id, agentId: agent.id, runId: run.runId });
  }
  const elapsedMs = performance.now() - started;
  const durations = done.results.map((result) => result.durationMs ?? 0).sort((a, b) => a - b);
  console.log(`agent tests: ${done.total} cases, concurrency ${CONCURRENCY}, status ${done.status}: ${done.passed} passed, ${done.failed} failed`);
  console.log(`  run created → completed: ${fmt(elapsedMs / 1000)} s (goal < ${GOAL_MS / 1000} s: ${elapsedMs < GOAL_MS ? "met" : "NOT met"})`);
  console.log(`  per case: p50 ${fmt(percentile(durations, 50))} ms, p99 ${fmt(percentile(durations, 99))} ms, turns ${done.results.map((result) => result.turns).join(" ")}`);

  await runner.stop();
  await stopEmbeddedOpenAiSimulator();
  await calendar.stop();
  await handle.close();
  await database.stop();
  rmSync(DATA_DIR, { recursive: true, force: true });
  if (done.status !== "completed" || done.failed > 0 || elapsedMs >= GOAL_MS) process.exitCode = 1;
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
