/**
 * The dispatcher alone, in real time: `npx tsx bench/dispatcher.ts [--contacts 600] [--rate 10]`.
 *
 * A fresh embedded Postgres gets `--contacts` first calls all due now (enrolled with the enrollment service, window
 * bypassed) for one organization whose dial-rate limit is `--rate`; the dispatcher then runs as its Inngest function
 * does — steps of `dispatchDueCalls` (CALL_DISPATCH_STEP_BUDGET_MS each), back to back while something is due — against
 * the voice simulator in manual pace (every placement is accepted at once; no conversation runs), so what is measured is
 * the dispatcher's own pipeline: claims, the gate, slot waits, placements, records. `bench/campaign.ts` measures the
 * whole app end to end; this one separates the dispatcher from the rest of the app competing for the same CPU.
 *
 * Prints: time to all calls dialed (against the schedule's own length), dispatch lag against the rate-limited schedule
 * (slot k = max(due k, slot k−1 + 1/rate) with due times counted from the dispatcher's start, compared with the k-th
 * dial; as in bench/campaign.ts) and against each
 * call's recorded slot, steps and claims, calls placed more than once, and the load average.
 */
import os from "node:os";

function flag(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? Number(process.argv[index + 1]) : fallback;
}

const CONTACTS = flag("contacts", 600);
const RATE = flag("rate", 10);
const NUMBERS = flag("numbers", 20);

async function main() {
  const { dialLags, startBenchDatabase, fmt, percentile } = await import("./lib/harness");
  const database = await startBenchDatabase();
  const { sql } = await import("drizzle-orm");
  const { createDb } = await import("@/db");
  const { createAgent } = await import("@/server/services/agents/create-agent");
  const { createOrganization } = await import("@/server/services/organizations/create-organization");
  const { createSequences } = await import("@/server/services/enrollment/create-sequences");
  const { dispatchDueCalls } = await import("@/server/services/call-engine/dial-call");
  const { createSimulatedVoiceEngine } = await import("@/server/voice/simulator/simulator");

  const handle = createDb(database.url, { max: 8 });
  const db = handle.db;
  const organization = await createOrganization(db, { name: "Dispatcher bench", monthlyCreditAllocation: 1_000_000 });
  const agent = await createAgent(db, {
    organizationId: organization.id,
    name: "Dispatcher agent",
    phoneNumbers: Array.from({ length: NUMBERS }, (_, i) => `+1646555${String(1000 + i).padStart(4, "0")}`),
    steps: [{ stepType: "CALL", delaySeconds: 0, delaySecondsMax: null, executionWindowConfig: { dayOffset: 0, timeWindow: { startTime: 0, endTime: 1440 }, timezoneSource: "contact" } }],
  });
  await db.execute(sql`update organizations set dial_rate_per_second = ${RATE} where id = ${organization.id}`);
  await db.execute(sql`update agents set auto_pause_enabled = false where id = ${agent.id}`);
  const now = new Date();
  for (let start = 0; start < CONTACTS; start += 1000) {
    await db.transaction((tx) =>
      createSequences(tx, {
        agent: { organizationId: organization.id, agentId: agent.id, steps: agent.steps, agentTimezone: "America/New_York", promptVersionId: agent.currentPromptVersionId, scheduledBy: "api" },
        contacts: Array.from({ length: Math.min(1000, CONTACTS - start) }, (_, k) => ({
          index: start + k,
          name: `Contact ${start + k}`,
          phoneNumber: `+1212${String(2000000 + start + k).padStart(7, "0")}`,
          phoneNumberExt: "",
          toEmailAddress: null,
          timezone: "America/New_York",
          scheduledAt: null,
          bypassCallWindows: true,
          groupByField: null,
          groupKey: null,
          customInputVariables: {},
        })),
        batchId: null,
        now,
      }),
    );
  }

  const engine = createSimulatedVoiceEngine({ pace: "manual", transport: async () => null });
  const loads: number[] = [];
  const loadTimer = setInterval(() => loads.push(os.loadavg()[0]!), 5000);
  const started = Date.now();
  let steps = 0;
  let claims = 0;
  let dialed = 0;
  while (dialed < CONTACTS && Date.now() - started < 600_000) {
    const result = await dispatchDueCalls(db, { clock: () => new Date(), voiceEngine: engine, organizationIds: [organization.id] });
    steps += 1;
    claims += result.claims;
    dialed += result.dialed;
    const nextAt = result.nextAt ? new Date(result.nextAt).getTime() : null;
    if (nextAt === null || nextAt > Date.now() + 60_000) break; // nothing due soon (quiet hours: COMPLIANCE_QUIET_HOURS=off)
    if (nextAt > Date.now()) await new Promise((resolve) => setTimeout(resolve, nextAt - Date.now()));
  }
  const finished = Date.now();
  clearInterval(loadTimer);

  const raw = await handle.sql<{ scheduled_at: string; dialed_at: string | null; slot: string | null; id: string }[]>`
    select id, scheduled_at::text, dialed_at::text, dial_slot_at::text as slot from calls where organization_id = ${organization.id}`;
  const date = (value: string | null) => (value === null ? null : new Date(value));
  const rows = raw.map((row) => ({ id: row.id, scheduled_at: date(row.scheduled_at)!, dialed_at: date(row.dialed_at), slot: date(row.slot) }));
  // Due times count from the dispatcher's start (enrolling thousands of contacts takes seconds before it).
  const { lags, slotLags } = dialLags(rows, RATE, started);
  const twice = rows.filter((row) => engine.dialCount(row.id) > 1).length;
  console.log(`Dispatcher alone: ${CONTACTS} calls due at once, dial-rate limit ${RATE}/s, ${NUMBERS} caller IDs`);
  console.log(`  all dialed after ${fmt((finished - started) / 1000)} s (the schedule alone needs ${fmt((CONTACTS - 1) / RATE)} s); ${lags.length} dialed in ${steps} steps, ${claims} claims`);
  console.log(`  dispatch lag against the rate-limited schedule: p50 ${fmt(percentile(lags, 50), 2)} s, p99 ${fmt(percentile(lags, 99), 2)} s, max ${fmt(lags.at(-1) ?? NaN, 2)} s   (goal p99 ≤ 2 s)`);
  console.log(`  dispatch lag against each call's recorded slot: p50 ${fmt(percentile(slotLags, 50), 3)} s, p99 ${fmt(percentile(slotLags, 99), 3)} s`);
  console.log(`  calls dialed more than once: ${twice}`);
  console.log(`  load average while it ran (1 min, every 5 s): min ${fmt(Math.min(...loads), 2)}, max ${fmt(Math.max(...loads), 2)} (${os.cpus().length} CPUs)`);
  await handle.close();
  await database.stop();
  process.exit(0);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
