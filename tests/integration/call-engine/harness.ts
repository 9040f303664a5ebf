import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeAll } from "vitest";
import { eq } from "drizzle-orm";
import type { InngestFunction } from "inngest";
import { POST as voiceEventsRoute } from "@/app/api/voice/events/route";
import type { Db } from "@/db";
import { agents, calls, creditTransactions, sequences, type AgentStep } from "@/db/schema";
import { inngest } from "@/inngest/client";
import { callAnalyzed, sequenceCancelled, sequenceStarted } from "@/inngest/events";
import { createAnalyzeCallFunction } from "@/inngest/functions/analyze-call";
import { createCallWatchdogFunction } from "@/inngest/functions/call-watchdog";
import { createDispatchCallsFunction, createDispatchDueCallsFunction } from "@/inngest/functions/dispatch-calls";
import { ruleBasedAnalyzer } from "@/server/analysis/rule-based";
import type { CallAnalyzer } from "@/server/analysis/types";
import type { CallAnalyzedData } from "@/server/services/call-engine/announce";
import type { CallEngineDependencies } from "@/server/services/call-engine/dependencies";
import { createSequences } from "@/server/services/enrollment/create-sequences";
import { createSimulatedVoiceEngine, type SimulatedVoiceEngine } from "@/server/voice/simulator/simulator";
import type { VoiceEngine } from "@/server/voice/types";
import { createFetchTransport } from "@/server/voice/transport";
import { createTestClock, startTestInngest, type TestClock, type TestInngest } from "@/tests/helpers/inngest";
import { createTestAgent, createTestOrganization, testPoolNumbers } from "@/tests/factories";
import type { CreateAgentParams } from "@/server/services/agents/create-agent";

export const ALWAYS_OPEN: AgentStep["executionWindowConfig"]["timeWindow"] = { startTime: 0, endTime: 1440 };

export function callStep(overrides: Partial<AgentStep> & { window?: { startTime: number; endTime: number }; dayOffset?: number; timezoneSource?: "contact" | "agent" } = {}): AgentStep {
  const { window, dayOffset, timezoneSource, ...rest } = overrides;
  return {
    stepType: "CALL",
    delaySeconds: 0,
    delaySecondsMax: null,
    executionWindowConfig: { dayOffset: dayOffset ?? 0, timeWindow: window ?? ALWAYS_OPEN, timezoneSource: timezoneSource ?? "contact" },
    ...rest,
  };
}

/** The demo agent's definitions (dropdown, DATE/TIME, number; three outcomes plus a disabled and a system one). */
export const AGENT_DEFINITIONS: Pick<CreateAgentParams, "inputVariables" | "extractedVariables" | "outcomes"> = {
  inputVariables: [{ slug: "company_name", required: true }, { slug: "crm_ref" }],
  extractedVariables: [
    { slug: "interest_level", displayName: "Interest level", type: "DROPDOWN", dropdownOptions: ["high", "medium", "low"] },
    { slug: "callback_time", displayName: "Callback time", type: "DATE/TIME", datetimeFormat: "yyyy-MM-dd HH:mm:ss", formatDatetimeInUtc: false },
    { slug: "budget", displayName: "Budget", type: "NUMBER" },
    { slug: "call_sentiment", displayName: "Call sentiment", type: "STRING", systemDefault: true },
  ],
  outcomes: [
    { name: "Meeting booked", description: "A follow-up meeting was booked." },
    { name: "Interested", description: "Interested, no meeting yet." },
    { name: "Not interested", description: "Declined." },
    { name: "Wrong person", enabled: false },
  ],
};

export type CallEngineHarness = {
  db: Db;
  clock: TestClock;
  simulator: SimulatedVoiceEngine;
  deps: CallEngineDependencies;
  runner: TestInngest;
  /** Every `call/analyzed` event delivered, in order. */
  analyzed: CallAnalyzedData[];
  /**
   * The organizations this engine's dispatcher and watchdog may touch (the test database is shared by parallel test
   * files): every organization of this test file made with `createEngineOrganization` or enrolled with `enroll`, plus
   * any pushed here.
   */
  watchdogScope: string[];
  /** Drains the runner and lets every placed call finish, until nothing is left to do at the current clock. */
  settle: () => Promise<void>;
  /** Moves the clock forward, letting calls that get dialed on the way finish. */
  advance: (ms: number) => Promise<void>;
  stop: () => Promise<void>;
};

export type HarnessOptions = {
  start?: Date;
  clock?: TestClock;
  analyzer?: CallAnalyzer;
  watchdog?: boolean;
  /** Leave out the analysis function (to leave calls stuck in Processing Analysis). */
  withoutAnalysis?: boolean;
  partition?: string;
  simulator?: SimulatedVoiceEngine;
  /** Another voice engine for the dialer (the simulator's process): the harness's manual simulator then dials nothing. */
  voiceEngine?: VoiceEngine;
  /** Event batches of the batched functions (default 1: every event starts its run at once on the simulated clock). */
  eventBatchSize?: number;
  /**
   * Keep the default dial-rate limits (10/s per organization, 5/s per caller ID). By default the engine raises both to
   * 1,000/s, so calls enrolled at one simulated instant are all dialed at that instant (pacing is dispatcher.test.ts's).
   */
  paced?: boolean;
  /** The dispatcher sweep's period (default a day: one cron run per simulated day; production sweeps every minute). */
  sweepPeriodMinutes?: number;
  /** How the harness's simulator sends recordings (default inline; `url`: hosted, downloaded by the entry point, as in the app). */
  recordings?: "inline" | "url";
  /** More functions for the same runner, made with the engine's clock and scope (e.g. the EMAIL/SMS senders). */
  extraFunctions?: (context: { clock: TestClock; organizationIds: () => string[] }) => InngestFunction.Any[];
};

const UNPACED_DIAL_RATE = "1000";

/** Organizations of this test file's engines (module state: each test file runs in its own module context). */
const engineOrganizations = new Set<string>();

/** Lets this file's call engines dispatch and watch the organization's calls. */
export function scopeEngineTo(organizationId: string) {
  engineOrganizations.add(organizationId);
}

/**
 * The call engine on the embedded runner, over the test database, with an injected clock: the real dispatcher
 * (dispatch-calls, dispatch-due-calls), analyze-call (and optionally call-watchdog) functions, the simulator in manual pace posting its events through
 * the real `/api/voice/events` route handler (signed), and the rule-based analyser.
 */
export async function startCallEngine(db: Db, options: HarnessOptions = {}): Promise<CallEngineHarness> {
  if (!options.paced) {
    process.env.CALL_DIAL_RATE_PER_SECOND = UNPACED_DIAL_RATE;
    process.env.CALL_DIAL_RATE_PER_NUMBER_PER_SECOND = UNPACED_DIAL_RATE;
  }
  const clock = options.clock ?? createTestClock(options.start ?? new Date("2026-03-02T15:00:00Z"));
  const simulator =
    options.simulator ??
    createSimulatedVoiceEngine({
      pace: "manual",
      now: clock.now,
      transport: createFetchTransport({ url: "http://localhost/api/voice/events", fetch: (request) => voiceEventsRoute(request) }),
      recordings: options.recordings,
    });
  const watchdogScope: string[] = [];
  const deps: CallEngineDependencies = {
    getDb: () => db,
    now: clock.now,
    voiceEngine: () => options.voiceEngine ?? simulator,
    analyzer: () => options.analyzer ?? ruleBasedAnalyzer,
    watchdogOrganizationIds: () => [...engineOrganizations, ...watchdogScope],
    eventBatchSize: options.eventBatchSize ?? 1,
    waitForSlot: async () => {},
    sweepPeriodMinutes: options.sweepPeriodMinutes ?? 1440,
  };
  const analyzed: CallAnalyzedData[] = [];
  const capture = inngest.createFunction({ id: "test-capture-call-analyzed", triggers: [callAnalyzed], retries: 0 }, async ({ event }) => {
    analyzed.push(event.data as unknown as CallAnalyzedData);
  });
  const functions: InngestFunction.Any[] = [createDispatchCallsFunction(inngest, deps), createDispatchDueCallsFunction(inngest, deps), capture];
  if (!options.withoutAnalysis) functions.push(createAnalyzeCallFunction(inngest, deps));
  if (options.watchdog) functions.push(createCallWatchdogFunction(inngest, deps));
  if (options.extraFunctions) functions.push(...options.extraFunctions({ clock, organizationIds: () => [...engineOrganizations, ...watchdogScope] }));
  const runner = await startTestInngest({ db, functions, clock, partition: options.partition });

  const settle = async () => {
    for (let round = 0; round < 200; round += 1) {
      await runner.drain();
      if (simulator.pendingCallIds().length === 0) return;
      await simulator.runPending();
    }
    throw new Error("the call engine did not settle");
  };
  const advance = async (ms: number) => {
    const target = clock.now().getTime() + ms;
    await settle();
    for (let round = 0; round < 10_000; round += 1) {
      const next = await runner.nextWakeAt();
      if (!next || next.getTime() > target) break;
      if (next.getTime() > clock.now().getTime()) clock.set(next);
      await settle();
    }
    clock.set(new Date(target));
    await settle();
  };
  const stop = async () => {
    await runner.stop();
    if (!options.simulator) await simulator.close();
    if (!options.paced) {
      delete process.env.CALL_DIAL_RATE_PER_SECOND;
      delete process.env.CALL_DIAL_RATE_PER_NUMBER_PER_SECOND;
    }
  };
  return { db, clock, simulator, deps, runner, analyzed, watchdogScope, settle, advance, stop };
}

export type EnrollParams = {
  agent: { id: string; organizationId: string; steps: AgentStep[]; timezones: string[]; currentPromptVersionId: string | null };
  phoneNumber: string;
  name?: string;
  timezone?: string;
  email?: string | null;
  scheduledAt?: Date | null;
  bypassCallWindows?: boolean;
  groupKey?: string | null;
  variables?: Record<string, string>;
  now: Date;
  /** Skip `sequence/started` (a sequence whose runner was lost). */
  withoutRunner?: boolean;
};

/** Enrolls one contact with the enrollment service (sequence + first call record, one transaction), then starts it. */
export async function enroll(db: Db, params: EnrollParams) {
  scopeEngineTo(params.agent.organizationId);
  const [created] = await db.transaction((tx) =>
    createSequences(tx, {
      agent: {
        organizationId: params.agent.organizationId,
        agentId: params.agent.id,
        steps: params.agent.steps,
        agentTimezone: params.agent.timezones[0] ?? "America/New_York",
        promptVersionId: params.agent.currentPromptVersionId,
        scheduledBy: "api",
      },
      contacts: [
        {
          index: 0,
          name: params.name ?? "Jane Doe",
          phoneNumber: params.phoneNumber,
          phoneNumberExt: "",
          toEmailAddress: params.email === undefined ? "jane@example.com" : params.email,
          timezone: params.timezone ?? "America/New_York",
          scheduledAt: params.scheduledAt ? params.scheduledAt.toISOString() : null,
          bypassCallWindows: params.bypassCallWindows ?? false,
          groupByField: params.groupKey ? "company_name" : null,
          groupKey: params.groupKey ?? null,
          customInputVariables: params.variables ?? { company_name: "Acme Corp", crm_ref: "CRM-42" },
        },
      ],
      batchId: null,
      now: params.now,
    }),
  );
  if (!created) throw new Error("enrollment created nothing");
  if (!params.withoutRunner && created.firstCall) await inngest.send(sequenceStarted.create({ sequenceId: created.sequenceId }));
  return created;
}

export async function cancelSequenceRun(sequenceId: string) {
  await inngest.send(sequenceCancelled.create({ sequenceId }));
}

/**
 * An organization with 10,000 credits a month and its agent "Ava": two steps, the demo definitions, and a pool of its
 * own fictional numbers, one per `poolAreaCodes` entry (Washington and San Francisco by default): read them from
 * `agent.phoneNumbers`, test files share the database.
 */
export async function createEngineOrganization(db: Db, overrides: Partial<CreateAgentParams> = {}, { poolAreaCodes = ["202", "415"] }: { poolAreaCodes?: string[] } = {}) {
  const { organization, apiKey } = await createTestOrganization(db, { monthlyCreditAllocation: 10_000 });
  const agent = await createTestAgent(db, organization.id, {
    name: "Ava",
    phoneNumbers: overrides.phoneNumbers ?? (await testPoolNumbers(db, organization.id, poolAreaCodes)),
    steps: [callStep(), callStep({ delaySeconds: 86_400 })],
    ...AGENT_DEFINITIONS,
    ...overrides,
  });
  scopeEngineTo(organization.id);
  return { organization, apiKey, agent };
}

export async function callsOf(db: Db, sequenceId: string) {
  return db.select().from(calls).where(eq(calls.sequenceId, sequenceId)).orderBy(calls.stepNumber, calls.attempt);
}

export async function sequenceOf(db: Db, sequenceId: string) {
  const [row] = await db.select().from(sequences).where(eq(sequences.id, sequenceId));
  return row!;
}

export async function ledgerOf(db: Db, organizationId: string) {
  return db.select().from(creditTransactions).where(eq(creditTransactions.organizationId, organizationId));
}

export async function setAgentStatus(db: Db, agentId: string, status: "ACTIVE" | "PAUSED" | "ARCHIVED") {
  await db.update(agents).set({ status }).where(eq(agents.id, agentId));
}

/**
 * For a test file: a fresh DATA_DIR (recordings) for the file, and a `start` that starts a call engine and stops
 * every engine it started after each test.
 */
export function useCallEngines(db: Db, name: string) {
  let engines: CallEngineHarness[] = [];
  beforeAll(() => {
    process.env.DATA_DIR = mkdtempSync(path.join(os.tmpdir(), `call-engine-${name}-`));
  });
  afterEach(async () => {
    for (const engine of engines) await engine.stop();
    engines = [];
  });
  return async function start(options: HarnessOptions = {}) {
    const engine = await startCallEngine(db, options);
    engines.push(engine);
    return engine;
  };
}
