import { and, asc, desc, eq, inArray, lt, or } from "drizzle-orm";
import type { Db, DbOrTx } from "@/db";
import { assertAgentInOrganization } from "@/db/queries/agents";
import { agentTestCases, agentTestResults, agentTestRuns } from "@/db/schema";
import { inngest } from "@/inngest/client";
import { agentTestRunRequested } from "@/inngest/events";
import { AppError } from "@/server/errors";
import { newId } from "@/server/ids";
import type { TTestResult, TTestRun, TTestRunSummary } from "@/server/schemas/agent-tests";
import { MAX_TEST_CASES_PER_RUN } from "@/server/schemas/limits";

/** Cases of a run played at once unless the request says otherwise. */
export const DEFAULT_TEST_RUN_CONCURRENCY = 5;
import { loadAgentTestContext } from "./test-context";

type RunRow = typeof agentTestRuns.$inferSelect;
type ResultRow = typeof agentTestResults.$inferSelect;

export type CreateTestRunParams = {
  organizationId: string;
  agentId: string;
  /** Default: the agent's current prompt version. */
  promptVersionId?: string | null;
  /** Default: every case of the agent. */
  testCaseIds?: string[] | null;
  concurrency?: number | null;
  source: "api" | "console";
  actorUserId: string | null;
  now: Date;
};

export function toTestRunSummary(run: RunRow): TTestRunSummary {
  return {
    runId: run.id,
    agentId: run.agentId,
    promptVersionId: run.promptVersionId,
    status: run.status,
    total: run.total,
    passed: run.passed,
    failed: run.failed,
    passRate: run.status === "completed" && run.total > 0 ? Math.round((run.passed / run.total) * 1000) / 1000 : null,
    source: run.source === "console" ? "console" : "api",
    createdAt: run.createdAt.toISOString(),
    startedAt: run.startedAt?.toISOString() ?? null,
    completedAt: run.completedAt?.toISOString() ?? null,
    error: run.error,
  };
}

function toTestResult(row: ResultRow): TTestResult {
  const failedCheck = row.checks.find((check) => !check.passed);
  return {
    testCaseId: row.caseId,
    name: row.caseName,
    status: row.status,
    reason: row.status === "error" ? row.error : failedCheck ? `${failedCheck.expectation}: ${failedCheck.reason}` : null,
    checks: row.checks,
    transcript: row.transcript,
    toolCalls: row.toolCalls,
    turns: row.turns,
    callResult: (row.payload?.callResult as Record<string, unknown> | undefined) ?? null,
    durationMs: row.durationMs,
    error: row.error,
  };
}

/**
 * Starts a run of an agent's test cases on a prompt version: the run and one pending result per case (with a copy of
 * the case) in one transaction, then `agent-tests/run.requested` after commit. Refused before anything is read:
 * more than MAX_TEST_CASES_PER_RUN cases (400 TOO_MANY_TEST_CASES). Then: AGENT_NOT_FOUND (also another
 * organization's agent), PROMPT_VERSION_NOT_FOUND, TEST_CASE_NOT_FOUND (a listed case not of this agent), and
 * 400 INVALID_REQUEST when there is no case to run.
 */
export async function createTestRun(db: Db, params: CreateTestRunParams): Promise<TTestRun> {
  const requested = params.testCaseIds ? [...new Set(params.testCaseIds)] : null;
  if (requested && requested.length > MAX_TEST_CASES_PER_RUN) {
    throw new AppError("TOO_MANY_TEST_CASES", `A run takes at most ${MAX_TEST_CASES_PER_RUN} test cases; ${requested.length} were given. Split them across runs.`);
  }
  const context = await loadAgentTestContext(db, params);
  const cases = await db
    .select()
    .from(agentTestCases)
    .where(and(eq(agentTestCases.agentId, context.agent.id), ...(requested ? [inArray(agentTestCases.id, requested)] : [])))
    .orderBy(asc(agentTestCases.createdAt), asc(agentTestCases.id));
  if (requested) {
    const found = new Set(cases.map((row) => row.id));
    const missing = requested.find((id) => !found.has(id));
    if (missing) throw new AppError("TEST_CASE_NOT_FOUND", `Test case ${missing} was not found on agent ${context.agent.id}.`);
  }
  if (cases.length === 0) throw new AppError("INVALID_REQUEST", "The agent has no test cases to run: add one first (POST /agents/{agentId}/tests/cases).");
  if (cases.length > MAX_TEST_CASES_PER_RUN) {
    throw new AppError("TOO_MANY_TEST_CASES", `A run takes at most ${MAX_TEST_CASES_PER_RUN} test cases; the agent has ${cases.length}. Name the cases to run (testCaseIds).`);
  }
  const runId = newId("test-run");
  const run = await db.transaction(async (tx) => {
    const [inserted] = await tx
      .insert(agentTestRuns)
      .values({
        id: runId,
        organizationId: params.organizationId,
        agentId: context.agent.id,
        promptVersionId: context.promptVersionId,
        concurrency: Math.min(params.concurrency ?? DEFAULT_TEST_RUN_CONCURRENCY, cases.length),
        total: cases.length,
        source: params.source,
        createdByUserId: params.actorUserId,
        createdAt: params.now,
      })
      .returning();
    await tx.insert(agentTestResults).values(
      cases.map((row, position) => ({
        id: newId("test-result"),
        runId,
        organizationId: params.organizationId,
        caseId: row.id,
        caseName: row.name,
        position,
        caseSnapshot: { persona: row.persona, contact: row.contact, inputVariables: row.inputVariables, expectations: row.expectations },
      })),
    );
    return inserted!;
  });
  // After commit: the run exists before anything plays it.
  await inngest.send(agentTestRunRequested.create({ runId }, { id: `agent-test-run:${runId}` }));
  return { ...toTestRunSummary(run), results: await findResults(db, runId) };
}

async function findResults(db: DbOrTx, runId: string): Promise<TTestResult[]> {
  const rows = await db.select().from(agentTestResults).where(eq(agentTestResults.runId, runId)).orderBy(asc(agentTestResults.position));
  return rows.map(toTestResult);
}

/** One run with its per-case results (TEST_RUN_NOT_FOUND when it is not a run of this agent of the organization). */
export async function getTestRun(db: DbOrTx, params: { organizationId: string; agentId: string; runId: string }): Promise<TTestRun> {
  await assertAgentInOrganization(db, params);
  const [run] = await db
    .select()
    .from(agentTestRuns)
    .where(and(eq(agentTestRuns.id, params.runId), eq(agentTestRuns.agentId, params.agentId), eq(agentTestRuns.organizationId, params.organizationId)))
    .limit(1);
  if (!run) throw new AppError("TEST_RUN_NOT_FOUND", `Test run ${params.runId} was not found on agent ${params.agentId}.`);
  return { ...toTestRunSummary(run), results: await findResults(db, run.id) };
}

/** An agent's runs, newest first, `limit` at a time before the `before` run (its ID) when given. */
export async function listTestRuns(db: DbOrTx, params: { organizationId: string; agentId: string; limit: number; before?: string | null }): Promise<{ runs: TTestRunSummary[]; hasMore: boolean }> {
  await assertAgentInOrganization(db, params);
  let cursor: RunRow | undefined;
  if (params.before) {
    [cursor] = await db.select().from(agentTestRuns).where(and(eq(agentTestRuns.id, params.before), eq(agentTestRuns.agentId, params.agentId))).limit(1);
    if (!cursor) throw new AppError("TEST_RUN_NOT_FOUND", `Test run ${params.before} was not found on agent ${params.agentId}.`);
  }
  const rows = await db
    .select()
    .from(agentTestRuns)
    .where(
      and(
        eq(agentTestRuns.agentId, params.agentId),
        eq(agentTestRuns.organizationId, params.organizationId),
        ...(cursor ? [or(lt(agentTestRuns.createdAt, cursor.createdAt), and(eq(agentTestRuns.createdAt, cursor.createdAt), lt(agentTestRuns.id, cursor.id)))] : []),
      ),
    )
    .orderBy(desc(agentTestRuns.createdAt), desc(agentTestRuns.id))
    .limit(params.limit + 1);
  return { runs: rows.slice(0, params.limit).map(toTestRunSummary), hasMore: rows.length > params.limit };
}
