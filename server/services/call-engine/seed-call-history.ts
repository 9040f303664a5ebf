import { and, eq, inArray, sql } from "drizzle-orm";
import { DateTime } from "luxon";
import type { Db, DbOrTx } from "@/db";
import { agents, calls, type AgentStep } from "@/db/schema";
import { ruleBasedAnalyzer } from "@/server/analysis/rule-based";
import { createSequences } from "@/server/services/enrollment/create-sequences";
import { API_SCHEDULED_BY } from "@/server/services/enrollment/schedulable-agent";
import { createSimulatedVoiceEngine } from "@/server/voice/simulator/simulator";
import { analyzeEndedCall } from "./analyze-call";
import { autoPauseCheck } from "./compliance-checks";
import { dialDueCall } from "./dial-call";
import { dialChecks } from "./dial-gate";
import { finalizeCall } from "./finalize-call";
import { findOpenCall } from "./sequence-state";
import { handleVoiceProviderEvent } from "./voice-events";
import { recordNumberCallsOf } from "@/server/services/numbers/health/record-number-stats";

export type SeedCallHistoryParams = {
  organizationId: string;
  /** Agents to spread the history over; only ACTIVE ones are used (the others could not have dialed). */
  agentIds: string[];
  now: Date;
  /** Days of history (default 30). */
  days?: number;
  /** Sequences started per day (default 3). */
  sequencesPerDay?: number;
  /** Sequences with a ten-call cadence (default 55: 550 calls). */
  manyCallsSequences?: number;
};

export type SeedCallHistoryResult = { sequenceIds: string[]; manyCallsSequenceIds: string[] };

const AREAS: Array<[string, string]> = [
  ["646", "America/New_York"],
  ["718", "America/New_York"],
  ["628", "America/Los_Angeles"],
  ["929", "America/New_York"],
  ["510", "America/Los_Angeles"],
  ["347", "America/New_York"],
  ["332", "America/New_York"],
  ["917", "America/New_York"],
];
const FIRST_NAMES = ["Olivia", "Liam", "Emma", "Noah", "Ava", "Elijah", "Sophia", "Mateo", "Isabella", "Lucas", "Mia", "Amelia", "Ethan", "Harper", "Kai", "Zoe"];
const LAST_NAMES = ["Garcia", "Smith", "Nguyen", "Johnson", "Patel", "Brown", "Kim", "Martinez", "Davis", "Lopez", "Wilson", "Okafor", "Schmidt", "Rossi"];
const COMPANIES = ["Northwind Traders", "Globex", "Initech", "Umbrella Health", "Stark Logistics", "Wayne Foods", "Hooli", "Vandelay Imports", "Soylent Labs", "Acme Corp"];
const ACCOUNTS = ["Gold", "Silver", "Enterprise", "Starter"];
/** Results that move a sequence on: the digits whose numbers make ten-call sequences. */
const NON_TERMINAL_DIGITS = [1, 2, 3, 4, 7, 9];

/** Ten calls, four hours apart, 9:00–20:00 in the contact's zone (inside every state's quiet hours): about four days. */
const TEN_CALL_CADENCE: AgentStep[] = Array.from({ length: 10 }, (_, index) => ({
  stepType: "CALL" as const,
  delaySeconds: index === 0 ? 0 : 4 * 3600,
  delaySecondsMax: null,
  executionWindowConfig: { dayOffset: 0, timeWindow: { startTime: 540, endTime: 1200 }, timezoneSource: "contact" as const },
}));

/** Upper bound of a cadence's length in milliseconds (delays with full jitter, day offsets, a day of window slack each). */
function cadenceSpanMs(steps: AgentStep[]): number {
  return steps.reduce((total, step) => {
    const delay = Math.max(step.delaySeconds, step.delaySecondsMax ?? 0) * 1000;
    return total + delay + step.executionWindowConfig.dayOffset * 86_400_000 + 86_400_000;
  }, 0);
}

type Contact = { name: string; phoneNumber: string; timezone: string; email: string; variables: Record<string, string> };

function contactFor(serial: number, digit: number): Contact {
  const [area, timezone] = AREAS[serial % AREAS.length]!;
  const first = FIRST_NAMES[serial % FIRST_NAMES.length]!;
  const last = LAST_NAMES[(serial * 7) % LAST_NAMES.length]!;
  const company = COMPANIES[serial % COMPANIES.length]!;
  return {
    name: `${first} ${last}`,
    // 555 numbers, unique per serial (a reused opted-out number would be suppressed).
    phoneNumber: `+1${area}555${String(serial % 1000).padStart(3, "0")}${digit}`,
    timezone,
    email: `${first}.${last}@${company.toLowerCase().replace(/[^a-z]+/g, "")}.example`.toLowerCase(),
    variables: { company_name: company, crm_ref: `CRM-${10_000 + serial}`, account: ACCOUNTS[serial % ACCOUNTS.length]! },
  };
}

/**
 * The dial gate without auto-pause. The history's sequences are driven four at a time, each in its own transaction
 * committed at its end, so the agent's last calls in dial order are whichever sequences happened to commit: their
 * failure share, and whether it paused the agent (leaving its later sequences unfinished), changed from run to run.
 */
const SEED_DIAL_CHECKS = dialChecks.filter((check) => check !== autoPauseCheck);

/**
 * Drives one sequence from enrollment to its end through the engine's own services, with explicit timestamps:
 * dialDueCall → the simulator (simulated event times) → handleVoiceProviderEvent (the entry point's service) →
 * analyzeEndedCall (rule-based) → finalizeCall (result, charge, opt-out, lifecycle, next step). No Inngest, no HTTP.
 */
async function driveSequence(db: DbOrTx, sequenceId: string, enrolledAt: Date, limit: Date, finalized: string[]): Promise<void> {
  let clock = enrolledAt;
  const simulator = createSimulatedVoiceEngine({
    pace: "manual",
    eventTimes: "simulated",
    now: () => clock,
    transport: async (event) => {
      const outcome = await handleVoiceProviderEvent(db, { event });
      return outcome.status === "accepted" ? (outcome.toolResult ?? null) : null;
    },
  });
  for (let round = 0; round < 100; round += 1) {
    const open = await findOpenCall(db, sequenceId);
    if (open.state !== "scheduled") return;
    const dueAt = new Date(open.dueAt);
    if (dueAt > limit) return;
    if (dueAt > clock) clock = dueAt;
    const dial = await dialDueCall(db, { callId: open.callId, now: clock, voiceEngine: simulator, checks: SEED_DIAL_CHECKS });
    if (dial.status === "deferred") {
      clock = new Date(dial.until);
      continue;
    }
    if (dial.status !== "dialed") continue;
    await simulator.runPending(open.callId);
    const analysis = await analyzeEndedCall(db, { callId: open.callId, analyzer: ruleBasedAnalyzer });
    if (!analysis) return;
    const [ended] = await db.select({ endedAt: calls.endedAt }).from(calls).where(eq(calls.id, open.callId));
    clock = new Date((ended?.endedAt ?? clock).getTime() + 4000);
    // Inside the seed's per-sequence transaction: counted on its number after the seed's commits (finalize-call.ts).
    await finalizeCall(db, { callId: open.callId, analysis, now: clock, numberHealth: "none" });
    finalized.push(open.callId);
  }
}

type SeedAgent = typeof agents.$inferSelect;

async function enrollSeedContact(
  db: Db,
  params: { organizationId: string; agent: SeedAgent; steps: AgentStep[]; contact: Contact; enrolledAt: Date },
): Promise<string | null> {
  const [sequence] = await db.transaction((tx) =>
    createSequences(tx, {
      agent: {
        organizationId: params.organizationId,
        agentId: params.agent.id,
        steps: params.steps,
        agentTimezone: params.agent.timezones[0] ?? params.contact.timezone,
        promptVersionId: params.agent.currentPromptVersionId,
        scheduledBy: API_SCHEDULED_BY,
      },
      contacts: [
        {
          index: 0,
          name: params.contact.name,
          phoneNumber: params.contact.phoneNumber,
          phoneNumberExt: "",
          toEmailAddress: params.contact.email,
          timezone: params.contact.timezone,
          scheduledAt: null,
          bypassCallWindows: false,
          groupByField: null,
          groupKey: null,
          customInputVariables: params.contact.variables,
        },
      ],
      batchId: null,
      now: params.enrolledAt,
    }),
  );
  return sequence?.sequenceId ?? null;
}

export type SeedContact = Contact;

/**
 * One contact enrolled on an agent at `enrolledAt` and driven through the engine until `until` (the demo seed's
 * meeting fixtures: digit-0 calls on booking agents book through the calendar provider during the call).
 */
export async function seedOneSequence(
  db: Db,
  params: { organizationId: string; agentId: string; contact: SeedContact; enrolledAt: Date; until: Date },
): Promise<string | null> {
  const [agent] = await db.select().from(agents).where(and(eq(agents.id, params.agentId), eq(agents.organizationId, params.organizationId)));
  if (!agent) return null;
  const sequenceId = await enrollSeedContact(db, { organizationId: params.organizationId, agent, steps: agent.steps, contact: params.contact, enrolledAt: params.enrolledAt });
  if (sequenceId) {
    const finalized: string[] = [];
    await driveSequence(db, sequenceId, params.enrolledAt, params.until, finalized);
    await recordNumberCallsOf(db, { callIds: finalized, now: params.until });
  }
  return sequenceId;
}

async function inPool<T>(items: T[], size: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(size, items.length) }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

/**
 * Demo history (issue 5 item 8): `days` of completed sequences of every result type — transcripts, recordings,
 * analysis, credit transactions in this and earlier months — produced by the call engine itself (the simulator by
 * last digit, the rule-based analyser, lifecycle and charging), driven directly with explicit past timestamps.
 * Plus `manyCallsSequenceIds`: sequences with a ten-call cadence (55 × 10 = 550 calls by default), for the
 * recordings endpoint's 100-sequence / 500-call limits. Every returned sequence is finished (done or failed).
 */
export async function seedCallHistory(db: Db, params: SeedCallHistoryParams): Promise<SeedCallHistoryResult> {
  const days = params.days ?? 30;
  const perDay = params.sequencesPerDay ?? 3;
  const manyCount = params.manyCallsSequences ?? 55;
  const rows = params.agentIds.length
    ? await db
        .select()
        .from(agents)
        .where(and(eq(agents.organizationId, params.organizationId), inArray(agents.id, params.agentIds), eq(agents.status, "ACTIVE")))
    : [];
  const active = params.agentIds.map((id) => rows.find((row) => row.id === id)).filter((row) => row !== undefined);
  if (active.length === 0) return { sequenceIds: [], manyCallsSequenceIds: [] };

  type Planned = { agent: (typeof active)[number]; steps: AgentStep[]; contact: Contact; enrolledAt: Date; many: boolean };
  const planned: Planned[] = [];
  let serial = 0;
  for (let day = days; day >= 1; day -= 1) {
    for (let slot = 0; slot < perDay; slot += 1) {
      const agent = active[(day * perDay + slot) % active.length]!;
      const contact = contactFor(serial, serial % 10);
      serial += 1;
      const enrolledAt = DateTime.fromJSDate(params.now, { zone: contact.timezone })
        .minus({ days: day })
        .set({ hour: 9 + slot * 2, minute: (slot * 17) % 60, second: 0, millisecond: 0 })
        .toJSDate();
      // Only cadences that finish before `now`: the history holds completed sequences.
      if (enrolledAt.getTime() + cadenceSpanMs(agent.steps) < params.now.getTime()) planned.push({ agent, steps: agent.steps, contact, enrolledAt, many: false });
    }
  }
  const manyDays = Math.max(1, days - 7);
  for (let index = 0; index < manyCount; index += 1) {
    // Each agent gets whole rounds of the six digits, so no agent's history is mostly failures (auto-pause).
    const agent = active[Math.floor(index / NON_TERMINAL_DIGITS.length) % active.length]!;
    const contact = contactFor(serial, NON_TERMINAL_DIGITS[index % NON_TERMINAL_DIGITS.length]!);
    serial += 1;
    const enrolledAt = DateTime.fromJSDate(params.now, { zone: contact.timezone })
      .minus({ days: 6 + (index % manyDays) })
      .set({ hour: 8 + (index % 5), minute: (index * 11) % 60, second: 0, millisecond: 0 })
      .toJSDate();
    planned.push({ agent, steps: TEN_CALL_CADENCE, contact, enrolledAt, many: true });
  }

  const created: Array<{ sequenceId: string; enrolledAt: Date; many: boolean }> = [];
  for (const item of planned) {
    const sequenceId = await enrollSeedContact(db, { organizationId: params.organizationId, agent: item.agent, steps: item.steps, contact: item.contact, enrolledAt: item.enrolledAt });
    if (sequenceId) created.push({ sequenceId, enrolledAt: item.enrolledAt, many: item.many });
  }

  // One transaction per sequence (the services' own transactions become savepoints): a seed of ~800 calls commits
  // ~170 times instead of ~4,000, and without waiting for each commit to reach the disk.
  const finalized: string[] = [];
  await inPool(created, 4, (item) =>
    db.transaction(async (tx) => {
      await tx.execute(sql`set local synchronous_commit = off`);
      await driveSequence(tx, item.sequenceId, item.enrolledAt, params.now, finalized);
    }),
  );
  // The history's calls on their numbers' days, now that they are committed (not judged: it is history).
  await recordNumberCallsOf(db, { callIds: finalized, now: params.now });

  const finished = new Set<string>();
  for (const item of created) {
    const open = await findOpenCall(db, item.sequenceId);
    if (open.state === "finished" && (open.lifecycleStatus === "done" || open.lifecycleStatus === "failed")) finished.add(item.sequenceId);
  }
  return {
    sequenceIds: created.filter((item) => !item.many && finished.has(item.sequenceId)).map((item) => item.sequenceId),
    manyCallsSequenceIds: created.filter((item) => item.many && finished.has(item.sequenceId)).map((item) => item.sequenceId),
  };
}
