import { and, asc, count, eq } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { assertAgentInOrganization, findExtractedVariableDefinitions, getAgentOrThrow } from "@/db/queries/agents";
import { agentTestCases, type TestExpectations } from "@/db/schema";
import { AppError, invalidField } from "@/server/errors";
import { newId } from "@/server/ids";
import type { TTestCase, TTestCaseInput } from "@/server/schemas/agent-tests";
import { MAX_TEST_CASES_PER_AGENT } from "@/server/schemas/limits";
import { canonicalTimezone } from "@/server/services/phone/timezones";
import { countExpectations } from "./expectations";
import { testContactOf } from "./test-context";

type TestCaseRow = typeof agentTestCases.$inferSelect;
export type AgentTestCaseParams = { organizationId: string; agentId: string };

export function toTestCase(row: TestCaseRow): TTestCase {
  return {
    testCaseId: row.id,
    agentId: row.agentId,
    name: row.name,
    persona: row.persona,
    contact: row.contact,
    inputVariables: row.inputVariables,
    expectations: row.expectations as TTestCase["expectations"],
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/**
 * The case's rules beyond its schema (400 INVALID_REQUEST naming the field): at least one expectation, a valid
 * regex and IANA timezone, and only slugs of the agent's extraction variables in variable expectations.
 */
function validateTestCase(input: TTestCaseInput, extractionSlugs: Set<string> | null): TestExpectations {
  const expectations = input.expectations as TestExpectations;
  if (countExpectations(expectations) === 0) {
    throw invalidField("expectations", "a test case needs at least one expectation (resultType, outcomes, extractedVariables, toolsCalled, toolsNotCalled, meetingBooked or maxTurns).");
  }
  expectations.extractedVariables?.forEach(({ slug, match }, index) => {
    if (extractionSlugs && !extractionSlugs.has(slug)) throw invalidField(`expectations.extractedVariables.${index}.slug`, `"${slug}" is not an extraction variable of this agent.`);
    if (match.type === "regex") {
      try {
        new RegExp(match.pattern, match.flags);
      } catch {
        throw invalidField(`expectations.extractedVariables.${index}.match.pattern`, `not a valid regular expression.`);
      }
    }
  });
  if (input.contact?.timezone && !canonicalTimezone(input.contact.timezone)) throw invalidField("contact.timezone", `"${input.contact.timezone}" is not an IANA timezone.`);
  return expectations;
}

async function extractionSlugsOf(db: DbOrTx, agentId: string): Promise<Set<string>> {
  const rows = await findExtractedVariableDefinitions(db, { agentId, customerDefinedOnly: true });
  return new Set(rows.map((row) => row.slug));
}

export async function listTestCases(db: DbOrTx, params: AgentTestCaseParams): Promise<TTestCase[]> {
  await assertAgentInOrganization(db, params);
  const rows = await db
    .select()
    .from(agentTestCases)
    .where(and(eq(agentTestCases.agentId, params.agentId), eq(agentTestCases.organizationId, params.organizationId)))
    .orderBy(asc(agentTestCases.createdAt), asc(agentTestCases.id));
  return rows.map(toTestCase);
}

export async function getTestCase(db: DbOrTx, params: AgentTestCaseParams & { testCaseId: string }): Promise<TTestCase> {
  await assertAgentInOrganization(db, params);
  return toTestCase(await findTestCaseOrThrow(db, params));
}

async function findTestCaseOrThrow(db: DbOrTx, params: AgentTestCaseParams & { testCaseId: string }): Promise<TestCaseRow> {
  const [row] = await db
    .select()
    .from(agentTestCases)
    .where(and(eq(agentTestCases.id, params.testCaseId), eq(agentTestCases.agentId, params.agentId), eq(agentTestCases.organizationId, params.organizationId)))
    .limit(1);
  if (!row) throw new AppError("TEST_CASE_NOT_FOUND", `Test case ${params.testCaseId} was not found on agent ${params.agentId}.`);
  return row;
}

/** Adds a case (AGENT_NOT_FOUND for another organization's agent; TOO_MANY_TEST_CASES past the agent's limit). */
export async function createTestCase(db: DbOrTx, params: AgentTestCaseParams & { input: TTestCaseInput; now: Date }): Promise<TTestCase> {
  const agent = await getAgentOrThrow(db, params);
  const expectations = validateTestCase(params.input, await extractionSlugsOf(db, agent.id));
  const [existing] = await db.select({ n: count() }).from(agentTestCases).where(eq(agentTestCases.agentId, agent.id));
  if ((existing?.n ?? 0) >= MAX_TEST_CASES_PER_AGENT) {
    throw new AppError("TOO_MANY_TEST_CASES", `An agent has at most ${MAX_TEST_CASES_PER_AGENT} test cases; delete one first.`);
  }
  const [row] = await db
    .insert(agentTestCases)
    .values({
      id: newId("test-case"),
      organizationId: params.organizationId,
      agentId: agent.id,
      name: params.input.name,
      persona: params.input.persona,
      contact: testContactOf(agent, params.input.contact ?? undefined),
      inputVariables: params.input.inputVariables ?? {},
      expectations,
      createdAt: params.now,
      updatedAt: params.now,
    })
    .returning();
  return toTestCase(row!);
}

/** Replaces a case's definition; runs already made keep their copy of it. */
export async function updateTestCase(db: DbOrTx, params: AgentTestCaseParams & { testCaseId: string; input: TTestCaseInput; now: Date }): Promise<TTestCase> {
  const agent = await getAgentOrThrow(db, params);
  await findTestCaseOrThrow(db, params);
  const expectations = validateTestCase(params.input, await extractionSlugsOf(db, agent.id));
  const [row] = await db
    .update(agentTestCases)
    .set({
      name: params.input.name,
      persona: params.input.persona,
      contact: testContactOf(agent, params.input.contact ?? undefined),
      inputVariables: params.input.inputVariables ?? {},
      expectations,
      updatedAt: params.now,
    })
    .where(eq(agentTestCases.id, params.testCaseId))
    .returning();
  return toTestCase(row!);
}

/** Deletes a case; its results in past runs stay (they carry the case's name and definition). */
export async function deleteTestCase(db: DbOrTx, params: AgentTestCaseParams & { testCaseId: string }): Promise<{ testCaseId: string; deleted: true }> {
  await assertAgentInOrganization(db, params);
  await findTestCaseOrThrow(db, params);
  await db.delete(agentTestCases).where(eq(agentTestCases.id, params.testCaseId));
  return { testCaseId: params.testCaseId, deleted: true };
}
