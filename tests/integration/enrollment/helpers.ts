import { and, asc, eq } from "drizzle-orm";
import type { Db } from "@/db";
import { calls, optOuts, sequences, type AgentStep } from "@/db/schema";
import { createTestAgent, createTestOrganization } from "../../factories";
import { apiClient } from "../../helpers/api";

export const ALWAYS_OPEN: AgentStep["executionWindowConfig"] = { dayOffset: 0, timeWindow: { startTime: 0, endTime: 1440 }, timezoneSource: "contact" };

export function callStep(overrides: Partial<AgentStep> = {}): AgentStep {
  return { stepType: "CALL", delaySeconds: 0, delaySecondsMax: null, executionWindowConfig: ALWAYS_OPEN, ...overrides };
}

/** An organization with credits and one schedulable agent (windows always open unless steps are given). */
export async function setupEnrollment(
  db: Db,
  options: {
    credits?: number;
    titleCaseAllowlisted?: boolean;
    agent?: Parameters<typeof createTestAgent>[2];
  } = {},
) {
  const { organization, apiKey } = await createTestOrganization(db, {
    monthlyCreditAllocation: options.credits ?? 5000,
    titleCaseAllowlisted: options.titleCaseAllowlisted ?? false,
  });
  const agent = await createTestAgent(db, organization.id, {
    timezones: ["America/Chicago"],
    steps: [callStep(), callStep({ delaySeconds: 86_400 })],
    inputVariables: [{ slug: "company_name", required: true }, { slug: "crm_ref" }],
    ...options.agent,
  });
  return { organization, apiKey, agent };
}

export async function findSequence(db: Db, sequenceId: string) {
  const [row] = await db.select().from(sequences).where(eq(sequences.id, sequenceId));
  return row;
}

export async function findCalls(db: Db, sequenceId: string) {
  return db.select().from(calls).where(eq(calls.sequenceId, sequenceId)).orderBy(asc(calls.stepNumber));
}

export async function sequencesOfAgent(db: Db, agentId: string) {
  return db.select().from(sequences).where(eq(sequences.agentId, agentId)).orderBy(asc(sequences.batchIndex), asc(sequences.createdAt));
}

export async function addOptOut(db: Db, organizationId: string, phoneNumber: string) {
  await db.insert(optOuts).values({ organizationId, phoneNumber });
}

export async function callsOfSequences(db: Db, organizationId: string) {
  return db.select().from(calls).where(and(eq(calls.organizationId, organizationId)));
}

type ApiCall = ReturnType<typeof apiClient>;

/** The real `/api/v1` client, waiting out 429s (10 requests/s per key) so long test sequences stay deterministic. */
export function patientApiClient(db: Db, options: { now?: () => Date } = {}): ApiCall {
  const call = apiClient(db, options);
  return (async (path, opts) => {
    for (;;) {
      const res = await call(path, opts);
      if (res.status !== 429) return res;
      await new Promise((resolve) => setTimeout(resolve, Number(res.headers.get("retry-after") ?? 1) * 1000));
    }
  }) as ApiCall;
}
