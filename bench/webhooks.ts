/**
 * Call-result webhook delivery to a loopback receiver, signed (Standard Webhooks), every attempt recorded in Postgres.
 * Goal (DESIGN §10): ≥ 500 deliveries per second. Figures, measured in one run against a throwaway embedded Postgres:
 *   1. baseline: a bare POST of the same body to the same receiver (no signing, no database) — the ceiling here;
 *   2. signing alone (standardwebhooks `sign`);
 *   3. the delivery service: attemptWebhookDelivery (load delivery + endpoint, decrypt secret, sign, POST with the
 *      guarded lookup, record the attempt and update the delivery in one transaction), N deliveries at concurrency C;
 *   4. end to end through the embedded Inngest runner: `call/analyzed` → enqueue-webhook-deliveries →
 *      webhook/delivery.requested → deliver-webhook → receiver, as a burst (throughput) and at a paced rate
 *      (delay from `call/analyzed` to the receiver's first byte, p50/p99).
 * The receiver verifies every signature with the standardwebhooks library and counts failures.
 *
 * Run: npx tsx bench/webhooks.ts   (BENCH_CALLS, BENCH_CONCURRENCY, BENCH_RUNNER_EVENTS, BENCH_PACED_RATE to tune)
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";

const DATA_DIR = mkdtempSync(path.join(os.tmpdir(), "ocs-bench-webhooks-"));
process.env.DATA_DIR = DATA_DIR;
process.env.APP_ENCRYPTION_KEY ??= randomBytes(32).toString("base64");

const CALLS = Number(process.env.BENCH_CALLS ?? 4000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 64);
const RUNNER_EVENTS = Number(process.env.BENCH_RUNNER_EVENTS ?? 1000);
const PACED_RATE = Number(process.env.BENCH_PACED_RATE ?? 50);
const PACED_SECONDS = Number(process.env.BENCH_PACED_SECONDS ?? 5);

async function main() {
  // Imported after DATA_DIR / APP_ENCRYPTION_KEY are set (the encryption key is read on first use).
  const { Webhook } = await import("standardwebhooks");
  const { createDb } = await import("@/db");
  const { calls, sequences } = await import("@/db/schema");
  const { newId } = await import("@/server/ids");
  const { createAgent } = await import("@/server/services/agents/create-agent");
  const { createOrganization } = await import("@/server/services/organizations/create-organization");
  const { LOOPBACK_ADDRESS_POLICY } = await import("@/server/services/webhooks/address-guard");
  const { attemptWebhookDelivery, createCallDeliveries } = await import("@/server/services/webhooks/deliveries");
  const { createWebhookEndpoint } = await import("@/server/services/webhooks/manage-endpoints");
  const { signWebhook, messageIdForCall } = await import("@/server/services/webhooks/signing");
  const { inngest } = await import("@/inngest/client");
  const { callAnalyzed } = await import("@/inngest/events");
  const { createEmbeddedRunner } = await import("@/inngest/embedded");
  const { createDeliverWebhookFunction } = await import("@/inngest/functions/deliver-webhook");
  const { createEnqueueWebhookDeliveriesFunction } = await import("@/inngest/functions/enqueue-webhook-deliveries");
  const { fmt, percentile, startBenchDatabase } = await import("./lib/harness");

  const database = await startBenchDatabase();
  // One connection per concurrent delivery (plus a few for the runner's bookkeeping), so the pool is not the bottleneck.
  const handle = createDb(database.url, { max: CONCURRENCY + 16 });
  const db = handle.db;

  // Receiver: first byte = the moment the request's headers arrive; every signature verified.
  let secret = "";
  let verifyFailures = 0;
  let received = 0;
  const firstByteAt = new Map<string, number>();
  const receiver = http.createServer((req, res) => {
    const arrived = performance.now();
    const messageId = String(req.headers["webhook-id"] ?? "");
    if (messageId && !firstByteAt.has(messageId)) firstByteAt.set(messageId, arrived);
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      received += 1;
      if (secret && req.headers["webhook-signature"]) {
        try {
          new Webhook(secret).verify(Buffer.concat(chunks).toString("utf8"), req.headers as Record<string, string>);
        } catch {
          verifyFailures += 1;
        }
      }
      res.writeHead(200, { "content-type": "text/plain" });
      res.end("ok");
    });
  });
  receiver.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;

  // Data: one organization, one agent with definitions, CALLS + RUNNER_EVENTS + paced analysed calls.
  const organization = await createOrganization(db, { name: "Webhook bench" });
  const agent = await createAgent(db, {
    organizationId: organization.id,
    name: "Bench agent",
    inputVariables: [{ slug: "company_name", displayName: "Company", required: true }],
    extractedVariables: [{ slug: "interest_level", type: "DROPDOWN", dropdownOptions: ["high", "low"] }],
    outcomes: [{ name: "Interested" }],
  });
  const totalCalls = CALLS + RUNNER_EVENTS + PACED_RATE * PACED_SECONDS;
  const callIds: string[] = [];
  const transcript = Array.from({ length: 12 }, (_, i) => (i % 2 ? "Contact: Sure, that sounds good to me." : "Agent: Thanks for taking the time today.")).join("\n");
  for (let offset = 0; offset < totalCalls; offset += 500) {
    const size = Math.min(500, totalCalls - offset);
    const sequenceRows = Array.from({ length: size }, (_, i) => ({
      id: newId("call-sequence"),
      organizationId: organization.id,
      agentId: agent.id,
      name: `Contact ${offset + i}`,
      phoneNumber: `+1201555${String(1000 + ((offset + i) % 9000)).padStart(4, "0")}`,
      timezone: "America/New_York",
      customInputVariables: { company_name: `Company ${offset + i}` },
      scheduledBy: "bench",
      steps: [],
      lifecycleStatus: "done" as const,
    }));
    await db.insert(sequences).values(sequenceRows);
    const callRows = sequenceRows.map((sequence) => ({
      id: newId("call"),
      organizationId: organization.id,
      agentId: agent.id,
      sequenceId: sequence.id,
      stepNumber: 1,
      scheduledAt: new Date(),
      resultType: "Goal Completed" as const,
      duration: 93,
      summary: "The contact was interested and asked for a follow-up.",
      transcript,
      extractedVariables: { interest_level: "high" },
      outcomes: [{ name: "Interested", reasoning: "Asked for a follow-up." }],
    }));
    await db.insert(calls).values(callRows);
    callIds.push(...callRows.map((call) => call.id));
  }
  const serviceCalls = callIds.slice(0, CALLS);
  const runnerCalls = callIds.slice(CALLS, CALLS + RUNNER_EVENTS);
  const pacedCalls = callIds.slice(CALLS + RUNNER_EVENTS);

  const created = await createWebhookEndpoint(db, { organizationId: organization.id, url: receiverUrl, policy: LOOPBACK_ADDRESS_POLICY });
  secret = created.secret;

  // 1. Baseline: bare POSTs of a representative body.
  const sampleDeliveries = await createCallDeliveries(db, { callId: serviceCalls[0]! });
  const [sampleRow] = await handle.sql<{ body: string }[]>`select body from webhook_deliveries where id = ${sampleDeliveries.deliveryIds[0]!}`;
  const sampleBody = sampleRow!.body;
  const bareAgent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const barePost = () =>
    new Promise<number>((resolve, reject) => {
      const req = http.request(receiverUrl, { method: "POST", agent: bareAgent, headers: { "content-type": "application/json" } }, (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      });
      req.on("error", reject);
      req.end(sampleBody);
    });
  const baseline = await runPool(CALLS, CONCURRENCY, () => barePost());

  // 2. Signing alone.
  const signCount = 20_000;
  const signStart = performance.now();
  for (let i = 0; i < signCount; i++) signWebhook({ secrets: [secret], messageId: messageIdForCall(serviceCalls[i % CALLS]!), timestamp: new Date(), body: sampleBody });
  const signPerSecond = signCount / ((performance.now() - signStart) / 1000);

  // 3. The delivery service.
  const createStart = performance.now();
  const deliveryIds = [sampleDeliveries.deliveryIds[0]!];
  for (let i = 1; i < serviceCalls.length; i += 1) deliveryIds.push(...(await createCallDeliveries(db, { callId: serviceCalls[i]! })).deliveryIds);
  const createPerSecond = deliveryIds.length / ((performance.now() - createStart) / 1000);
  received = 0;
  let serviceFailures = 0;
  const service = await runPool(deliveryIds.length, CONCURRENCY, async (i) => {
    const result = await attemptWebhookDelivery(db, { deliveryId: deliveryIds[i]!, trigger: "automatic", automaticAttempt: 1, policy: LOOPBACK_ADDRESS_POLICY });
    if (result.outcome !== "succeeded") serviceFailures += 1;
    return result.statusCode ?? 0;
  });
  const [attemptRows] = await handle.sql<{ count: string }[]>`select count(*)::text as count from webhook_delivery_attempts`;

  // 4. End to end through the embedded Inngest runner (real clock, background polling).
  const deps = { getDb: () => db, now: () => new Date(), addressPolicy: () => LOOPBACK_ADDRESS_POLICY };
  const runner = createEmbeddedRunner({
    db,
    functions: [createEnqueueWebhookDeliveriesFunction(inngest, deps), createDeliverWebhookFunction(inngest, deps)],
    autoPoll: true,
    pollIntervalMs: 50,
    concurrency: CONCURRENCY,
    logger: { info: () => {}, warn: console.warn, error: console.error },
  });
  await runner.start();

  const waitForMessages = async (ids: string[], timeoutMs: number) => {
    const deadline = performance.now() + timeoutMs;
    while (performance.now() < deadline) {
      if (ids.every((id) => firstByteAt.has(id))) return true;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return false;
  };

  const burstIds = runnerCalls.map((callId) => messageIdForCall(callId));
  const burstStart = performance.now();
  for (let i = 0; i < runnerCalls.length; i += 100) {
    await inngest.send(runnerCalls.slice(i, i + 100).map((callId) => callAnalyzed.create({ callId })));
  }
  const burstSentMs = performance.now() - burstStart;
  const burstComplete = await waitForMessages(burstIds, 120_000);
  const burstEnd = Math.max(...burstIds.map((id) => firstByteAt.get(id) ?? performance.now()));
  const burstPerSecond = burstIds.length / ((burstEnd - burstStart) / 1000);

  const pacedDelays: number[] = [];
  const sentAt = new Map<string, number>();
  for (let i = 0; i < pacedCalls.length; i += 1) {
    const due = performance.now() + 1000 / PACED_RATE;
    const callId = pacedCalls[i]!;
    sentAt.set(messageIdForCall(callId), performance.now());
    await inngest.send(callAnalyzed.create({ callId }));
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  }
  const pacedComplete = await waitForMessages([...sentAt.keys()], 60_000);
  for (const [id, sent] of sentAt) if (firstByteAt.has(id)) pacedDelays.push(firstByteAt.get(id)! - sent);
  pacedDelays.sort((a, b) => a - b);
  await runner.stop();

  console.log(`Webhook delivery to a loopback receiver (signed, every signature verified by the receiver); concurrency ${CONCURRENCY}`);
  console.log(`  1. baseline, bare POST (no signing, no database):   ${fmt(baseline.perSecond, 0)} req/s over ${baseline.count}`);
  console.log(`  2. signing alone (standardwebhooks sign):            ${fmt(signPerSecond, 0)} signatures/s`);
  console.log(`     creating deliveries from calls (one by one):      ${fmt(createPerSecond, 0)} deliveries/s`);
  console.log(
    `  3. delivery service (sign + POST + attempt logged):  ${fmt(service.perSecond, 0)} deliveries/s over ${service.count}, ` +
      `p50 ${fmt(service.p50)} ms, p99 ${fmt(service.p99)} ms, failures ${serviceFailures}, attempts recorded ${attemptRows!.count}   (goal ≥ 500/s)`,
  );
  console.log(`     ratio service/baseline: ${fmt((service.perSecond / baseline.perSecond) * 100)} %`);
  console.log(
    `  4. through the embedded Inngest runner, burst of ${burstIds.length} call/analyzed: ${fmt(burstPerSecond, 0)} deliveries/s` +
      ` (sending the events took ${fmt(burstSentMs, 0)} ms)${burstComplete ? "" : " (INCOMPLETE: timed out)"}`,
  );
  console.log(
    `     paced ${PACED_RATE}/s for ${PACED_SECONDS} s: delay call/analyzed → receiver first byte p50 ${fmt(percentile(pacedDelays, 50))} ms, ` +
      `p99 ${fmt(percentile(pacedDelays, 99))} ms, max ${fmt(pacedDelays.at(-1) ?? NaN)} ms (${pacedDelays.length}/${sentAt.size} delivered${pacedComplete ? "" : ", INCOMPLETE"})`,
  );
  console.log(`  receiver: ${received} requests in phases 3–4, signature failures ${verifyFailures}`);

  receiver.closeAllConnections();
  receiver.close();
  await handle.close();
  await database.stop();
  rmSync(DATA_DIR, { recursive: true, force: true });
  process.exit(0);
}

/** `total` tasks, at most `concurrency` at once; rate and latency percentiles. */
async function runPool(total: number, concurrency: number, task: (i: number) => Promise<number>) {
  const latencies: number[] = [];
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: Math.min(concurrency, total) }, async () => {
      while (next < total) {
        const i = next++;
        const began = performance.now();
        await task(i);
        latencies.push(performance.now() - began);
      }
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? NaN;
  return { perSecond: total / seconds, count: total, p50: at(50), p99: at(99) };
}

main().catch((error) => {
  console.error(error);
  rmSync(DATA_DIR, { recursive: true, force: true });
  process.exit(1);
});
