import type { Db } from "@/db";
import { calls, creditAllocations, creditTransactions, sequences } from "@/db/schema";
import { newId } from "@/server/ids";
import { createAgent, type CreateAgentParams } from "@/server/services/agents/create-agent";
import { createApiKey } from "@/server/services/api-keys/manage-api-keys";
import { createOrganization, type CreateOrganizationParams } from "@/server/services/organizations/create-organization";

/** A fresh organization with one API key: each test makes its own, so tests run in parallel without cleanup. */
export async function createTestOrganization(db: Db, overrides: Partial<CreateOrganizationParams> = {}) {
  const organization = await createOrganization(db, {
    name: overrides.name ?? "Test Org",
    monthlyCreditAllocation: 1000,
    ...overrides,
  });
  const { key } = await createApiKey(db, { organizationId: organization.id, name: "test" });
  return { organization, apiKey: key };
}

export async function createTestAgent(db: Db, organizationId: string, overrides: Partial<CreateAgentParams> = {}) {
  return createAgent(db, { organizationId, name: overrides.name ?? "Test Agent", ...overrides });
}

export async function createTestTransaction(
  db: Db,
  params: { organizationId: string; agentId: string | null; credits: number; createdAt: Date },
) {
  await db.insert(creditTransactions).values({ id: newId("txn"), callId: null, description: "test", ...params });
}

export async function setMonthAllocation(db: Db, organizationId: string, month: string, credits: number) {
  await db.insert(creditAllocations).values({ organizationId, month, credits });
}

/** A sequence row written directly (no scheduling, no events): for read-side tests such as conversations/recordings. */
export async function createTestSequence(
  db: Db,
  params: { organizationId: string; agentId: string } & Partial<typeof sequences.$inferInsert>,
) {
  const [row] = await db
    .insert(sequences)
    .values({
      id: newId("call-sequence"),
      name: "Test Contact",
      phoneNumber: "+12015550123",
      timezone: "America/New_York",
      scheduledBy: "test",
      steps: [],
      ...params,
    })
    .returning();
  return row!;
}

/** A call row written directly, e.g. a completed call with a transcript and a recording key. */
export async function createTestCall(
  db: Db,
  params: { organizationId: string; agentId: string; sequenceId: string; scheduledAt: Date } & Partial<typeof calls.$inferInsert>,
) {
  const [row] = await db
    .insert(calls)
    .values({ id: newId("call"), stepNumber: 1, ...params })
    .returning();
  return row!;
}
