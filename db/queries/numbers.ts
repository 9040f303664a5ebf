import { and, asc, eq, inArray, ne, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { numbers, type NumberCarrier } from "@/db/schema";

export type OwnedNumber = typeof numbers.$inferSelect;

/** The organization that owns `phoneNumber` now (its active row), or null: nobody does. */
export async function findActiveNumber(db: DbOrTx, phoneNumber: string): Promise<OwnedNumber | null> {
  const [row] = await db
    .select()
    .from(numbers)
    .where(and(eq(numbers.phoneNumber, phoneNumber), eq(numbers.status, "active")))
    .limit(1);
  return row ?? null;
}

/** Every live (not released) row of these numbers, in any organization. */
export async function findLiveNumberRows(db: DbOrTx, phoneNumbers: string[]): Promise<OwnedNumber[]> {
  if (phoneNumbers.length === 0) return [];
  return db
    .select()
    .from(numbers)
    .where(and(inArray(numbers.phoneNumber, [...new Set(phoneNumbers)]), ne(numbers.status, "released")));
}

/** The organization's numbers that are not released, by number. */
export async function findOrganizationNumbers(db: DbOrTx, organizationId: string): Promise<OwnedNumber[]> {
  return db
    .select()
    .from(numbers)
    .where(and(eq(numbers.organizationId, organizationId), ne(numbers.status, "released")))
    .orderBy(asc(numbers.phoneNumber));
}

/** One of the organization's numbers by ID (released ones included); null for another organization's. */
export async function findOrganizationNumber(db: DbOrTx, params: { organizationId: string; numberId: string }): Promise<OwnedNumber | null> {
  const [row] = await db
    .select()
    .from(numbers)
    .where(and(eq(numbers.id, params.numberId), eq(numbers.organizationId, params.organizationId)))
    .limit(1);
  return row ?? null;
}

/** SQL: `phoneNumber` is an active number of `organizationId` that places calls and is not resting at `now`. */
export function isCallableNumberSql(params: { organizationId: unknown; phoneNumber: unknown; now: Date }) {
  return sql`exists (select 1 from ${numbers} n where n.organization_id = ${params.organizationId} and n.phone_number = ${params.phoneNumber}
    and n.status = 'active' and n.voice and (n.resting_until is null or n.resting_until <= ${params.now.toISOString()}::timestamptz))`;
}

/** Of `phoneNumbers` (a pool, in its order), those the organization owns and that can send SMS. */
export async function findSmsSenders(db: DbOrTx, params: { organizationId: string; phoneNumbers: string[] }): Promise<string[]> {
  if (params.phoneNumbers.length === 0) return [];
  const rows = await db
    .select({ phoneNumber: numbers.phoneNumber })
    .from(numbers)
    .where(and(eq(numbers.organizationId, params.organizationId), inArray(numbers.phoneNumber, params.phoneNumbers), eq(numbers.status, "active"), eq(numbers.sms, true)));
  const senders = new Set(rows.map((row) => row.phoneNumber));
  return params.phoneNumbers.filter((number) => senders.has(number));
}

/** The carrier of an organization's active number (its SMS go through it); null when it is not theirs. */
export async function findNumberCarrier(db: DbOrTx, params: { organizationId: string; phoneNumber: string }): Promise<NumberCarrier | null> {
  const [row] = await db
    .select({ carrier: numbers.carrier })
    .from(numbers)
    .where(and(eq(numbers.organizationId, params.organizationId), eq(numbers.phoneNumber, params.phoneNumber), eq(numbers.status, "active")))
    .limit(1);
  return row?.carrier ?? null;
}
