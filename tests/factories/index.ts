import { randomInt } from "node:crypto";
import type { Db } from "@/db";
import { and, eq } from "drizzle-orm";
import { calls, creditAllocations, creditTransactions, numbers, sequences, type NumberCarrier } from "@/db/schema";
import { claimFictionalNumbers } from "@/server/services/numbers/claim-fictional-numbers";
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

/**
 * A fresh agent. Its pool is the organization's own numbers (docs/numbers.md): the numbers given are made the
 * organization's (a number another test organization owns fails the test: numbers are unique, so parallel test files
 * must not share literal pool numbers — leave `phoneNumbers` out for a fresh fictional number); none given: one fresh.
 */
export async function createTestAgent(db: Db, organizationId: string, overrides: Partial<CreateAgentParams> = {}) {
  const phoneNumbers = overrides.phoneNumbers ? await ownTestNumbers(db, organizationId, overrides.phoneNumbers) : await claimFictionalNumbers(db, { organizationId, count: 1 });
  return createAgent(db, { organizationId, name: overrides.name ?? "Test Agent", ...overrides, phoneNumbers });
}

/**
 * Pool numbers for a test: one free number in each area code (line 555-2000…2999, which no test uses for contacts:
 * they use 555-01xx), made the organization's own. Test files run in parallel on one database and a number belongs to
 * one organization: read the numbers back from the result rather than writing literals.
 */
export async function testPoolNumbers(db: Db, organizationId: string, areaCodes: string[], options: { sms?: boolean; voice?: boolean; inbound?: boolean; carrier?: NumberCarrier } = {}): Promise<string[]> {
  const claimed: string[] = [];
  for (const areaCode of areaCodes) {
    for (let tried = 0; ; tried += 1) {
      if (tried === 1000) throw new Error(`No free test number left in area code ${areaCode}.`);
      const phoneNumber = `+1${areaCode}555${2000 + randomInt(1000)}`;
      const [row] = await db
        .insert(numbers)
        .values({ id: newId("number"), organizationId, phoneNumber, carrier: options.carrier ?? "twilio", voice: options.voice ?? true, sms: options.sms ?? true, inbound: options.inbound ?? true, source: "purchased", status: "active" })
        .onConflictDoNothing()
        .returning({ phoneNumber: numbers.phoneNumber });
      if (row) {
        claimed.push(row.phoneNumber);
        break;
      }
    }
  }
  return claimed;
}

/** Makes these numbers the organization's own (voice, SMS, inbound), as a purchase would. */
export async function ownTestNumbers(db: Db, organizationId: string, phoneNumbers: string[], options: { sms?: boolean; voice?: boolean; inbound?: boolean } = {}) {
  for (const phoneNumber of phoneNumbers) {
    const [owner] = await db.select({ organizationId: numbers.organizationId }).from(numbers).where(and(eq(numbers.phoneNumber, phoneNumber), eq(numbers.status, "active")));
    if (owner?.organizationId === organizationId) continue;
    if (owner) throw new Error(`Test number ${phoneNumber} is owned by another test organization: give each test file its own numbers (or leave phoneNumbers out).`);
    await db.insert(numbers).values({
      id: newId("number"),
      organizationId,
      phoneNumber,
      carrier: "twilio",
      voice: options.voice ?? true,
      sms: options.sms ?? true,
      inbound: options.inbound ?? true,
      source: "purchased",
      status: "active",
    });
  }
  return phoneNumbers;
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
