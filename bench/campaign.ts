/**
 * Campaign-scale throughput, end to end against a running `npm start` (the built app on embedded Postgres, the
 * embedded Inngest runner and the voice simulator), started by this script on a temp DATA_DIR and a free port:
 *
 *   npx tsx bench/campaign.ts [--contacts 3000] [--rate 50] [--requests 3] [--numbers 20] [--timeout 900] [--analysis-ms 0]
 *
 * `--contacts` are enrolled through `POST /api/v1/agents/{id}/schedule/sequences` in `--requests` bulk requests
 * (`bypassCallWindows`, one CALL step, so every first call is due at once), with the organization's dial-rate limit
 * set to `--rate` calls/s (the `organizations.dial_rate_per_second` column, when the schema has it). The agent has
 * `--numbers` caller IDs, so the per-number limit does not bind before the organization's. A loopback receiver
 * verifies every webhook signature (standardwebhooks) and counts each `webhook-id`.
 *
 * `--analysis-ms N` (N > 0): the app analyses calls with its LLM analyser against a loopback stand-in for an
 * OpenAI-compatible endpoint that answers each call after N ms (a real model takes seconds), so the analysis backlog a
 * slow model builds during a burst shows; without it, the rule-based analyser.
 *
 * `--statements 1`: the bench's Postgres loads pg_stat_statements (reset just before the first request) and the bench
 * prints the database's statements per finished call and the statements run most often (the app's and this script's
 * progress queries alike), with their time in the database; off by default (the extension costs the database a little).
 *
 * `--stage-cpu 1` (default): the app times its CPU by pipeline stage (STAGE_CPU_ACCOUNTING, read from `/metrics`
 * before the first request and at the end) and the bench prints ms per finished call for each stage; the accounting's
 * async hook costs CPU itself, so the split is printed beside the process's whole CPU of the same run. `--stage-cpu 0`:
 * no accounting (the process CPU alone, as before). The runner's queue is sampled every second: the deepest backlog
 * of each function (jobs due and not taken) is printed with when it peaked.
 *
 * Prints: time to all sequences (after the last 202), dispatch lag against the rate-limited schedule (p50/p99),
 * time to all first calls dialed and to all webhooks (after the last 202), calls/s end to end, duplicates, losses,
 * and the load average while it ran. The rate-limited schedule is computed here from the calls' due times
 * (slot k = max(due k, slot k-1 + 1/rate)) and compared with the k-th dial, so the same figure is measured before and
 * after the dial-rate limit existed; when calls record their planned slot (`dial_slot_at`), the lag against it is
 * printed too. Goals (issue 16): all first calls dialed within 60 s and all webhooks within 120 s of the last 202
 * at 50/s for 3,000 contacts (≥ 25 calls/s end to end), 0 lost, 0 duplicates; at 10/s, dispatch lag p99 ≤ 2 s.
 */
import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";

function flag(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? Number(process.argv[index + 1]) : fallback;
}

const CONTACTS = flag("contacts", 3000);
const RATE = flag("rate", 50);
const REQUESTS = flag("requests", Math.max(1, Math.ceil(CONTACTS / 1000)));
const NUMBERS = flag("numbers", 20);
const TIMEOUT_S = flag("timeout", 900);
const ANALYSIS_MS = flag("analysis-ms", 0);
const STAGE_CPU = flag("stage-cpu", 1) === 1;
const STATEMENTS = flag("statements", 0) === 1;

/** The app's CPU seconds per stage, from its `/metrics` (`app_stage_cpu_seconds_total{stage}`). */
async function readStageCpu(appUrl: string, request: (url: string, headers: Record<string, string>) => Promise<{ status: number; body: string }>): Promise<Map<string, number>> {
  const response = await request(`${appUrl}/metrics`, {});
  const seconds = new Map<string, number>();
  for (const match of response.body.matchAll(/^app_stage_cpu_seconds_total\{stage="([a-z-]+)"\} ([0-9.e+-]+)$/gm)) seconds.set(match[1]!, Number(match[2]));
  return seconds;
}

/** A loopback stand-in for an OpenAI-compatible chat completions endpoint: after `delayMs`, a valid analysis (the first allowed result type). */
async function startSlowModel(delayMs: number): Promise<{ url: string; close: () => void }> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
        model: string;
        response_format: { json_schema: { schema: { properties: { resultType: { enum: string[] }; extractedVariables: { properties?: Record<string, unknown> } } } } };
      };
      const schema = body.response_format.json_schema.schema.properties;
      const answer = {
        resultType: schema.resultType.enum[0],
        summary: "The contact was called.",
        extractedVariables: Object.fromEntries(Object.keys(schema.extractedVariables.properties ?? {}).map((key) => [key, null])),
        outcomes: [],
        agentActions: [],
        humanActions: [],
      };
      setTimeout(() => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(
          JSON.stringify({
            id: "bench",
            object: "chat.completion",
            created: Math.floor(Date.now() / 1000),
            model: body.model,
            choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: JSON.stringify(answer), refusal: null } }],
          }),
        );
      }, delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, close: () => server.close() };
}

async function main() {
  const database = await (await import("./lib/harness")).startBenchDatabase(
    STATEMENTS ? ["-c", "shared_preload_libraries=pg_stat_statements", "-c", "pg_stat_statements.track=all"] : [],
  );
  // The app and this script share the data directory and encryption key (the endpoint secret is encrypted here).
  process.env.DATA_DIR = database.dir;
  process.env.APP_ENCRYPTION_KEY ??= randomBytes(32).toString("base64");
  const { Webhook } = await import("standardwebhooks");
  const { sql } = await import("drizzle-orm");
  const { createDb } = await import("@/db");
  const { createApiKey } = await import("@/server/services/api-keys/manage-api-keys");
  const { createAgent } = await import("@/server/services/agents/create-agent");
  const { createOrganization } = await import("@/server/services/organizations/create-organization");
  const { LOOPBACK_ADDRESS_POLICY } = await import("@/server/services/webhooks/address-guard");
  const { createWebhookEndpoint } = await import("@/server/services/webhooks/manage-endpoints");
  const { descendantCpuMs, dialLags, fmt, percentile, processCpuMs, request, startNextApp } = await import("./lib/harness");

  const handle = createDb(database.url, { max: 4 });
  const db = handle.db;
  const organization = await createOrganization(db, { name: "Campaign bench", monthlyCreditAllocation: 1_000_000 });
  const phoneNumbers = Array.from({ length: NUMBERS }, (_, i) => `+1646555${String(1000 + i).padStart(4, "0")}`);
  const agent = await createAgent(db, {
    organizationId: organization.id,
    name: "Campaign agent",
    phoneNumbers,
    inputVariables: [{ slug: "company_name", displayName: "Company" }],
    outcomes: [{ name: "Interested" }],
    steps: [
      {
        stepType: "CALL",
        delaySeconds: 0,
        delaySecondsMax: null,
        executionWindowConfig: { dayOffset: 0, timeWindow: { startTime: 540, endTime: 1020 }, timezoneSource: "contact" },
      },
    ],
  });
  // The organization owns its caller IDs (issue 35: a pool may only hold its own active numbers, checked again at
  // dial time), each allowed the whole campaign in a day (the default daily cap, 100, is a real sender's limit).
  const hasNumbersTable = (await handle.sql<{ present: boolean }[]>`select to_regclass('public.numbers') is not null as present`)[0]!.present;
  if (hasNumbersTable) {
    for (const [index, phoneNumber] of phoneNumbers.entries()) {
      await handle.sql`insert into numbers (id, organization_id, phone_number, carrier, voice, sms, inbound, source, status, daily_call_cap)
        values (${`number.bench${index}`}, ${organization.id}, ${phoneNumber}, 'twilio', true, false, true, 'purchased', 'active', ${CONTACTS})`;
    }
  }
  const { key } = await createApiKey(db, { organizationId: organization.id, name: "campaign bench" });
  const hasRateColumn = (
    await handle.sql<{ present: boolean }[]>`select exists (select 1 from information_schema.columns where table_name = 'organizations' and column_name = 'dial_rate_per_second') as present`
  )[0]!.present;
  if (hasRateColumn) await db.execute(sql`update organizations set dial_rate_per_second = ${RATE} where id = ${organization.id}`);
  // Auto-pause off for the campaign's agent: the simulator's digit table makes 2 calls in 10 Failed or Invalid Phone
  // Number. The window counts in dial order now, so the fast failures no longer pause it after ~170 calls, but a window
  // of 50 calls at a 20 % failure rate still crosses 30 % by chance now and then over a long burst (tried: it paused
  // after 533 of 600; its reason was not captured) — the rule doing its job on these numbers, not what this bench measures.
  const hasAutoPause = (
    await handle.sql<{ present: boolean }[]>`select exists (select 1 from information_schema.columns where table_name = 'agents' and column_name = 'auto_pause_enabled') as present`
  )[0]!.present;
  if (hasAutoPause) await db.execute(sql`update agents set auto_pause_enabled = false where id = ${agent.id}`);
  const hasSlotColumn = (
    await handle.sql<{ present: boolean }[]>`select exists (select 1 from information_schema.columns where table_name = 'calls' and column_name = 'dial_slot_at') as present`
  )[0]!.present;

  // Receiver: every signature verified; each webhook-id counted.
  let secret = "";
  let verifyFailures = 0;
  const firstSeen = new Map<string, number>();
  let duplicates = 0;
  const receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const id = String(req.headers["webhook-id"] ?? "");
      try {
        new Webhook(secret).verify(Buffer.concat(chunks).toString("utf8"), req.headers as Record<string, string>);
      } catch {
        verifyFailures += 1;
      }
      if (firstSeen.has(id)) duplicates += 1;
      else firstSeen.set(id, Date.now());
      res.writeHead(200, { "content-type": "text/plain" });
      res.end("ok");
    });
  });
  receiver.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  secret = (await createWebhookEndpoint(db, { organizationId: organization.id, url: receiverUrl, policy: LOOPBACK_ADDRESS_POLICY })).secret;

  const slowModel = ANALYSIS_MS > 0 ? await startSlowModel(ANALYSIS_MS) : null;
  if (slowModel) {
    process.env.ANALYSIS_LLM_URL = slowModel.url;
    process.env.ANALYSIS_LLM_MODEL = "bench-slow-model";
  }
  if (STAGE_CPU) process.env.STAGE_CPU_ACCOUNTING = "1";
  const app = await startNextApp(database.url, database.dir);
  // startNextApp waits 20 s at most; a loaded machine needs longer to boot the app.
  for (let i = 0; i < 600; i++) {
    const ready = await request(`${app.url}/api/v1/openapi.json`, {}).catch(() => null);
    if (ready?.status === 200) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  // Warm-up (not measured): a one-contact bulk request of another organization, until its sequence exists — the
  // app's embedded runner has started and synced by then (on a loaded machine that takes minutes after the first byte).
  const warmOrg = await createOrganization(db, { name: "Warm-up", monthlyCreditAllocation: 10 });
  const warmAgent = await createAgent(db, { organizationId: warmOrg.id, name: "Warm-up agent", steps: agent.steps });
  const warmKey = (await createApiKey(db, { organizationId: warmOrg.id, name: "warm-up" })).key;
  const warm = await request(
    `${app.url}/api/v1/agents/${warmAgent.id}/schedule/sequences`,
    { "x-api-key": warmKey, "content-type": "application/json" },
    { method: "POST", body: JSON.stringify({ timezone: "America/New_York", contacts: [{ name: "Warm Up", phoneNumber: "+12125550199", bypassCallWindows: true }] }) },
  );
  if (warm.status !== 202) throw new Error(`warm-up request answered ${warm.status}: ${warm.body.slice(0, 300)}`);
  const warmStart = Date.now();
  while (Date.now() - warmStart < 600_000) {
    const [row] = await handle.sql<{ count: string }[]>`select count(*) from sequences where organization_id = ${warmOrg.id}`;
    if (Number(row!.count) > 0) break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  console.log(`  warm-up: the app's runner materialized a bulk request ${((Date.now() - warmStart) / 1000).toFixed(1)} s after its 202`);

  const loads: number[] = [];
  const loadTimer = setInterval(() => loads.push(os.loadavg()[0]!), 5000);

  // Contacts: last digits cycle through the simulator's scenarios (answered, voicemail, busy, invalid, failed …).
  const contacts = Array.from({ length: CONTACTS }, (_, i) => ({
    name: `Contact ${i}`,
    phoneNumber: `+1212${String(2000000 + i).padStart(7, "0")}`,
    company_name: `Company ${i}`,
    bypassCallWindows: true,
  }));
  const perRequest = Math.ceil(CONTACTS / REQUESTS);
  const appCpuAtStart = processCpuMs(app.pid);
  const stageCpuAtStart = STAGE_CPU ? await readStageCpu(app.url, request) : new Map<string, number>();
  const childrenCpuAtStart = descendantCpuMs(app.pid);
  if (STATEMENTS) {
    await handle.sql`create extension if not exists pg_stat_statements`;
    await handle.sql`select pg_stat_statements_reset()`;
  }
  const started = Date.now();
  let last202 = 0;
  for (let r = 0; r < REQUESTS; r++) {
    const body = JSON.stringify({ timezone: "America/New_York", contacts: contacts.slice(r * perRequest, (r + 1) * perRequest) });
    const response = await request(`${app.url}/api/v1/agents/${agent.id}/schedule/sequences`, { "x-api-key": key, "content-type": "application/json" }, { method: "POST", body });
    if (response.status !== 202) throw new Error(`bulk request ${r} answered ${response.status}: ${response.body.slice(0, 300)}`);
    last202 = Date.now();
  }

  type Progress = { sequences: number; dialed: number; final: number };
  const progress = async (): Promise<Progress> => {
    const [row] = await handle.sql<{ sequences: string; dialed: string; final: string }[]>`
      select (select count(*) from sequences where organization_id = ${organization.id}) as sequences,
             count(*) filter (where dialed_at is not null) as dialed,
             count(*) filter (where result_type not in ('Scheduled', 'Calling', 'Processing Analysis')) as final
      from calls where organization_id = ${organization.id}`;
    return { sequences: Number(row!.sequences), dialed: Number(row!.dialed), final: Number(row!.final) };
  };
  let allSequencesAt: number | null = null;
  let allDialedAt: number | null = null;
  let allFinalAt: number | null = null;
  let lastPrint = 0;
  let lastSample = 0;
  /** The deepest backlog seen per function: jobs due and not leased, and when (s after the last 202). */
  const deepest = new Map<string, { due: number; at: number }>();
  while (Date.now() - started < TIMEOUT_S * 1000) {
    const p = await progress();
    const now = Date.now();
    if (allSequencesAt === null && p.sequences >= CONTACTS) allSequencesAt = now;
    if (allDialedAt === null && p.dialed >= CONTACTS) allDialedAt = now;
    if (allFinalAt === null && p.final >= CONTACTS) allFinalAt = now;
    if (now - lastSample >= 1000) {
      lastSample = now;
      // Where the work waits: the runner's jobs per function, due and not leased / leased (short function names).
      const queue = await handle.sql<{ fn: string; due: string; leased: string }[]>`
        select function_id as fn, count(*) filter (where lease_token is null and run_at <= now()) as due, count(*) filter (where lease_token is not null) as leased
        from inngest_jobs group by 1 order by 1`;
      for (const row of queue) {
        const fn = row.fn.replace(/^outbound-calling-/, "");
        if (Number(row.due) > (deepest.get(fn)?.due ?? -1)) deepest.set(fn, { due: Number(row.due), at: (now - last202) / 1000 });
      }
      if (now - lastPrint > 10_000) {
        lastPrint = now;
        const jobs = queue.map((row) => `${row.fn.replace(/^outbound-calling-/, "")} ${row.due}/${row.leased}`).join(", ");
        console.log(`  t+${fmt((now - last202) / 1000, 0)} s: sequences ${p.sequences}, dialed ${p.dialed}, final ${p.final}, webhooks ${firstSeen.size}, load ${fmt(os.loadavg()[0]!, 2)}; jobs due/leased: ${jobs || "none"}`);
      }
    }
    if (firstSeen.size >= CONTACTS && allFinalAt !== null) break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const appCpuMs = processCpuMs(app.pid) - appCpuAtStart;
  const stageCpuAtEnd = STAGE_CPU ? await readStageCpu(app.url, request) : new Map<string, number>();
  // The app's child processes (the voice simulator's, VOICE_SIMULATOR_PROCESS=separate): a provider's work, counted apart.
  const childrenCpu = [...descendantCpuMs(app.pid)].map(([pid, ms]) => ({ pid, ms: ms - (childrenCpuAtStart.get(pid) ?? 0) }));
  const appWallMs = Date.now() - started;
  // A little longer, to catch late duplicates.
  await new Promise((resolve) => setTimeout(resolve, 3000));
  clearInterval(loadTimer);
  const allWebhooksAt = firstSeen.size >= CONTACTS ? Math.max(...firstSeen.values()) : null;
  const firstWebhookAt = firstSeen.size > 0 ? Math.min(...firstSeen.values()) : null;

  const raw = await handle.sql<{ scheduled_at: string; dialed_at: string | null; slot: string | null }[]>`
    select scheduled_at::text, dialed_at::text, ${hasSlotColumn ? handle.sql`dial_slot_at::text` : handle.sql`null::text`} as slot
    from calls where organization_id = ${organization.id} and step_number = 1`;
  const date = (value: string | null) => (value === null ? null : new Date(value));
  const rows = raw.map((row) => ({ scheduled_at: date(row.scheduled_at)!, dialed_at: date(row.dialed_at), slot: date(row.slot) }));
  const { lags, slotLags } = dialLags(rows, RATE);
  const final = await progress();
  const [deliveryRow] = await handle.sql<{ deliveries: string; succeeded: string }[]>`
    select count(*) as deliveries, count(*) filter (where status = 'succeeded') as succeeded from webhook_deliveries where organization_id = ${organization.id}`;
  const results = await handle.sql<{ result_type: string; count: string }[]>`
    select result_type, count(*) from calls where organization_id = ${organization.id} group by 1 order by 1`;

  const since = (at: number | null) => (at === null ? "not reached" : `${fmt((at - last202) / 1000)} s`);
  const endToEnd = allWebhooksAt === null ? NaN : CONTACTS / ((allWebhooksAt - started) / 1000);
  console.log(`Campaign: ${CONTACTS} contacts in ${REQUESTS} bulk requests, dial-rate limit ${RATE}/s${hasRateColumn ? "" : " (no rate column in this schema: the limit is not applied, the schedule is computed at this rate)"}, ${NUMBERS} caller IDs, ${slowModel ? `LLM analyser answering after ${ANALYSIS_MS} ms` : "rule-based analyser"}`);
  console.log(`  requests: ${fmt((last202 - started) / 1000, 2)} s to the last 202`);
  console.log(`  time to all sequences (after the last 202): ${since(allSequencesAt)}`);
  console.log(`  time to all first calls dialed: ${since(allDialedAt)}   (goal ≤ 60 s at 50/s; the schedule alone needs ${fmt(CONTACTS / RATE)} s)`);
  console.log(`  dispatch lag against the rate-limited schedule: p50 ${fmt(percentile(lags, 50), 2)} s, p99 ${fmt(percentile(lags, 99), 2)} s, max ${fmt(lags.at(-1) ?? NaN, 2)} s   (goal p99 ≤ 2 s at 10/s)`);
  if (hasSlotColumn) console.log(`  dispatch lag against each call's recorded slot (dialedAt − max(dueAt, dial_slot_at)): p50 ${fmt(percentile(slotLags, 50), 2)} s, p99 ${fmt(percentile(slotLags, 99), 2)} s`);
  console.log(`  time to the first webhook: ${since(firstWebhookAt)}; to all first calls with a final result: ${since(allFinalAt)}`);
  console.log(`  time to all webhooks: ${since(allWebhooksAt)}   (goal ≤ 120 s)`);
  console.log(`  calls/s end to end (first request → last webhook): ${fmt(endToEnd)}   (goal ≥ 25 at 50/s)`);
  console.log(`  lost: ${CONTACTS - final.sequences} sequences, ${CONTACTS - final.final} calls without a final result, ${CONTACTS - firstSeen.size} webhooks; duplicates: ${duplicates} webhooks; signature failures: ${verifyFailures}`);
  console.log(`  deliveries: ${deliveryRow!.deliveries} (${deliveryRow!.succeeded} succeeded); results: ${results.map((row) => `${row.result_type} ${row.count}`).join(", ")}`);
  // The app's own work per call, whatever else the machine runs (CPU time, not wall time): what a change to the
  // pipeline saves shows here even when the load average makes the wall-clock figures incomparable.
  console.log(
    `  app process CPU from the first request to the end: ${fmt(appCpuMs / 1000)} s over ${fmt(appWallMs / 1000)} s (${fmt(appCpuMs / Math.max(1, appWallMs), 2)} cores), ${fmt(appCpuMs / Math.max(1, final.final), 1)} ms per finished call (${final.final})`,
  );
  const childrenCpuMs = childrenCpu.reduce((sum, child) => sum + child.ms, 0);
  console.log(
    `  app's child processes (the voice simulator's): ${childrenCpu.length === 0 ? "none" : `${fmt(childrenCpuMs / 1000)} s CPU (${childrenCpu.map((child) => `pid ${child.pid} ${fmt(child.ms / 1000)} s`).join(", ")}), ${fmt(childrenCpuMs / Math.max(1, final.final), 1)} ms per finished call`}`,
  );
  if (STAGE_CPU) {
    // The app's CPU by stage over the same span (its own accounting; the async hook's cost lands in the stages too).
    const stages = [...new Set([...stageCpuAtEnd.keys()])].map((stage) => ({ stage, seconds: (stageCpuAtEnd.get(stage) ?? 0) - (stageCpuAtStart.get(stage) ?? 0) }));
    const counted = stages.reduce((sum, row) => sum + row.seconds, 0);
    const calls = Math.max(1, final.final);
    console.log(`  app CPU by stage (STAGE_CPU_ACCOUNTING; ${fmt(counted)} s counted of the process's ${fmt(appCpuMs / 1000)} s, the rest GC and work outside callbacks), ms per finished call (goal ≤ 8 ms in all):`);
    for (const row of stages.sort((a, b) => b.seconds - a.seconds)) {
      console.log(`    ${row.stage.padEnd(13)} ${fmt((row.seconds * 1000) / calls, 2).padStart(7)} ms   ${fmt((100 * row.seconds) / Math.max(1e-9, counted), 1).padStart(5)} %`);
    }
    console.log(`    ${"all counted".padEnd(13)} ${fmt((counted * 1000) / calls, 2).padStart(7)} ms; whole process ${fmt(appCpuMs / calls, 2)} ms`);
  }
  if (STATEMENTS) {
    // What the database was asked, per finished call: a query too many per call shows here long before it shows as CPU.
    const statements = await handle.sql<{ query: string; calls: string; total_ms: number; mean_ms: number }[]>`
      select query, calls::text as calls, total_exec_time as total_ms, mean_exec_time as mean_ms from pg_stat_statements
      where query not ilike '%pg_stat_statements%'`;
    const calls = Math.max(1, final.final);
    const all = statements.reduce((sum, row) => sum + Number(row.calls), 0);
    const allMs = statements.reduce((sum, row) => sum + row.total_ms, 0);
    const line = (row: (typeof statements)[number]) =>
      `    ${fmt(Number(row.calls) / calls, 2).padStart(7)}/call ${fmt(row.mean_ms, 3).padStart(8)} ms mean ${fmt(row.total_ms / calls, 2).padStart(7)} ms/call  ${row.query.replace(/\s+/g, " ").slice(0, 140)}`;
    console.log(`  database statements: ${all} (${fmt(all / calls, 1)} per finished call), ${fmt(allMs / 1000)} s executing (${fmt(allMs / calls, 2)} ms per call); the 25 run most often:`);
    for (const row of [...statements].sort((a, b) => Number(b.calls) - Number(a.calls)).slice(0, 25)) console.log(line(row));
    console.log("  the 10 with the most time in the database:");
    for (const row of [...statements].sort((a, b) => b.total_ms - a.total_ms).slice(0, 10)) console.log(line(row));
  }
  console.log(`  deepest backlog per function (jobs due, not taken; s after the last 202): ${[...deepest].filter(([, value]) => value.due > 0).map(([fn, value]) => `${fn} ${value.due} at t+${fmt(value.at, 0)}`).join(", ") || "none"}`);
  console.log(`  load average while it ran (1 min, every 5 s): min ${fmt(Math.min(...loads), 2)}, max ${fmt(Math.max(...loads), 2)}, mean ${fmt(loads.reduce((a, b) => a + b, 0) / Math.max(1, loads.length), 2)} (${os.cpus().length} CPUs)`);

  await app.stop();
  slowModel?.close();
  receiver.close();
  await handle.close();
  await database.stop();
  process.exit(0);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
