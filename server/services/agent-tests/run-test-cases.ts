import { and, asc, eq, inArray, sql } from "drizzle-orm";
import type { Db } from "@/db";
import { agentTestResults, agentTestRuns, type TestCheck } from "@/db/schema";
import { getLogger } from "@/server/observability/logger";
import { checkExpectations } from "./expectations";
import { getTestModels, type TestModels } from "./models";
import { DEFAULT_TURN_LIMIT, judgeValue, playSimulatedConversation } from "./simulated-conversation";
import { loadAgentTestContext, testPlaceCallRequest, type AgentTestContext } from "./test-context";
import { analyzeTestConversation, formatTestTranscript } from "./test-result";
import { bookMeetingInTest, newTestToolState, optOutInTest } from "./test-tools";

/** Spoken words per second, for a simulated conversation's duration (what the analyser and payload get). */
const WORDS_PER_SECOND = 2.5;

type ResultRow = typeof agentTestResults.$inferSelect;

/** Marks a run started and returns its pending cases in order (a retried start returns what is still pending). */
export async function startTestRun(db: Db, params: { runId: string; now: Date }): Promise<{ pendingResultIds: string[]; concurrency: number } | null> {
  const [run] = await db
    .update(agentTestRuns)
    .set({ status: "running", startedAt: sql`coalesce(${agentTestRuns.startedAt}, ${params.now.toISOString()}::timestamptz)` })
    .where(and(eq(agentTestRuns.id, params.runId), inArray(agentTestRuns.status, ["queued", "running"])))
    .returning({ concurrency: agentTestRuns.concurrency });
  if (!run) return null;
  const pending = await db
    .select({ id: agentTestResults.id })
    .from(agentTestResults)
    .where(and(eq(agentTestResults.runId, params.runId), eq(agentTestResults.status, "pending")))
    .orderBy(asc(agentTestResults.position));
  return { pendingResultIds: pending.map((row) => row.id), concurrency: run.concurrency };
}

/**
 * Plays these cases of a run at once (the caller bounds how many) and stores each result as it finishes. A case
 * whose conversation fails (a model error) ends `error` with the message; the others go on. Already finished cases
 * (a retried step) are skipped.
 */
export async function runTestCases(db: Db, params: { runId: string; resultIds: string[]; now: () => Date }): Promise<void> {
  const [run] = await db.select().from(agentTestRuns).where(eq(agentTestRuns.id, params.runId)).limit(1);
  if (!run || params.resultIds.length === 0) return;
  const rows = await db
    .select()
    .from(agentTestResults)
    .where(and(eq(agentTestResults.runId, run.id), inArray(agentTestResults.id, params.resultIds), eq(agentTestResults.status, "pending")));
  if (rows.length === 0) return;
  const [context, models] = await Promise.all([
    loadAgentTestContext(db, { organizationId: run.organizationId, agentId: run.agentId, promptVersionId: run.promptVersionId }),
    getTestModels(),
  ]);
  await Promise.all(rows.map((row) => runOneCase(db, { row, context, models, now: params.now })));
}

async function runOneCase(db: Db, params: { row: ResultRow; context: AgentTestContext; models: TestModels; now: () => Date }) {
  const { row, context, models } = params;
  const started = Date.now();
  try {
    const outcome = await playAndCheck(db, { row, context, models, now: params.now });
    await db
      .update(agentTestResults)
      .set({ ...outcome, status: outcome.checks.every((check) => check.passed) ? "passed" : "failed", durationMs: Date.now() - started, completedAt: params.now() })
      .where(eq(agentTestResults.id, row.id));
  } catch (error) {
    getLogger("agent-tests").warn({ runId: row.runId, resultId: row.id, err: error }, "test case could not be played");
    const message = error instanceof Error ? error.message.slice(0, 500) : String(error);
    await db
      .update(agentTestResults)
      .set({ status: "error", error: `The conversation could not be played: ${message}`, durationMs: Date.now() - started, completedAt: params.now() })
      .where(eq(agentTestResults.id, row.id));
  }
}

async function playAndCheck(db: Db, params: { row: ResultRow; context: AgentTestContext; models: TestModels; now: () => Date }) {
  const { row, context, models } = params;
  const { persona, contact, inputVariables, expectations } = row.caseSnapshot;
  const startedAt = params.now();
  const tools = newTestToolState();
  const toolParams = { db, context, contact, inputVariables, state: tools, now: params.now };
  const turnLimit = expectations.maxTurns !== undefined ? Math.min(DEFAULT_TURN_LIMIT, expectations.maxTurns + 2) : DEFAULT_TURN_LIMIT;
  const conversation = await playSimulatedConversation({
    models,
    request: testPlaceCallRequest(context, { testId: row.id, contact, inputVariables }),
    persona,
    contact,
    tools: { book_meeting: (args) => bookMeetingInTest(toolParams, args), opt_out: () => optOutInTest(toolParams) },
    now: startedAt,
    turnLimit,
  });
  const words = conversation.transcript.reduce((count, turn) => count + turn.text.split(/\s+/).filter(Boolean).length, 0);
  const durationSeconds = Math.max(1, Math.round(words / WORDS_PER_SECOND));
  const endedAt = new Date(startedAt.getTime() + durationSeconds * 1000);
  const { payload } = await analyzeTestConversation({ context, testId: row.id, contact, inputVariables, lines: conversation.transcript, durationSeconds, startedAt, endedAt, tools });
  const transcript = formatTestTranscript(conversation.transcript);
  const checks: TestCheck[] = await checkExpectations({
    expectations,
    payload,
    toolCalls: conversation.toolCalls,
    turns: conversation.turns,
    endedWithinLimit: conversation.endedBy !== "turn-limit",
    meetingBooked: tools.meeting !== null,
    judge: (judged) => judgeValue(models, { ...judged, transcript }),
  });
  return { checks, transcript: conversation.transcript, toolCalls: conversation.toolCalls, payload: payload as Record<string, unknown>, turns: conversation.turns };
}

/** Counts the run's results and closes it (`completed`); cases still pending (none, normally) count as errors. */
export async function finishTestRun(db: Db, params: { runId: string; now: Date }): Promise<{ passed: number; failed: number }> {
  await db
    .update(agentTestResults)
    .set({ status: "error", error: "The case was not played (the run ended first).", completedAt: params.now })
    .where(and(eq(agentTestResults.runId, params.runId), eq(agentTestResults.status, "pending")));
  const [counts] = await db
    .select({
      passed: sql<number>`count(*) filter (where ${agentTestResults.status} = 'passed')::int`,
      failed: sql<number>`count(*) filter (where ${agentTestResults.status} <> 'passed')::int`,
    })
    .from(agentTestResults)
    .where(eq(agentTestResults.runId, params.runId));
  const passed = counts?.passed ?? 0;
  const failed = counts?.failed ?? 0;
  await db.update(agentTestRuns).set({ status: "completed", passed, failed, completedAt: params.now }).where(eq(agentTestRuns.id, params.runId));
  return { passed, failed };
}

/** A run that cannot go on (its function failed for good): closed as `failed` with the reason. */
export async function failTestRun(db: Db, params: { runId: string; reason: string; now: Date }): Promise<void> {
  await db
    .update(agentTestRuns)
    .set({ status: "failed", error: params.reason, completedAt: params.now })
    .where(and(eq(agentTestRuns.id, params.runId), inArray(agentTestRuns.status, ["queued", "running"])));
}

/** Runs a whole run in this process (benchmarks, the seed): start, waves of `concurrency` cases, finish. */
export async function runTestRunNow(db: Db, params: { runId: string; now?: () => Date }): Promise<{ passed: number; failed: number }> {
  const now = params.now ?? (() => new Date());
  const started = await startTestRun(db, { runId: params.runId, now: now() });
  if (started) {
    for (let index = 0; index < started.pendingResultIds.length; index += started.concurrency) {
      await runTestCases(db, { runId: params.runId, resultIds: started.pendingResultIds.slice(index, index + started.concurrency), now });
    }
  }
  return finishTestRun(db, { runId: params.runId, now: now() });
}
