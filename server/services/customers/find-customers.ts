import { and, asc, desc, eq, inArray, or, sql, type SQL } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { agents, calls, sequences, type LifecycleStatus } from "@/db/schema";
import { containsPattern } from "@/db/queries/like";
import { normalizePhoneNumber } from "@/server/services/phone/normalize-phone-number";

export type FindCustomersParams = {
  /** Verified organization of the caller: only its sequences and calls are searched. */
  organizationId: string;
  /** What support typed: a name, a phone number in any format, an email, a custom-variable value or an ID. */
  query: string;
  limit: number;
};

export type CustomerMatchField = "id" | "phone" | "name" | "email" | "variable";

export type CustomerMatch = {
  sequenceId: string;
  /** Set when the query was a call ID: the call to open. */
  callId: string | null;
  matchedOn: CustomerMatchField[];
  /** The variable whose value matched, when one did. */
  matchedVariable: { name: string; value: string } | null;
  contact: { name: string; phoneNumber: string; email: string | null; timezone: string };
  agent: { agentId: string; name: string };
  lifecycleStatus: LifecycleStatus;
  /** The latest call that has a result (not merely scheduled). */
  lastCall: { callId: string; resultType: string; at: string } | null;
  /** The earliest call still waiting to be dialed. */
  nextCall: { callId: string; scheduledAt: string } | null;
  /** The latest meeting booked during one of the sequence's calls. */
  meeting: { callId: string; startTime: string; status: "booked" | "cancelled" } | null;
};

/**
 * Support's "find a customer": sequences of every agent of the organization whose contact matches the query by
 * sequence or call ID (exact), phone number (normalized to E.164 when it parses, else by its digits), name, email or
 * any custom-variable value (case-insensitive substring). Most recently updated first.
 */
export async function findCustomers(db: DbOrTx, params: FindCustomersParams): Promise<{ results: CustomerMatch[] }> {
  const query = params.query.trim();
  if (query.length === 0) return { results: [] };
  const like = containsPattern(query);
  const phone = normalizePhoneNumber(query);
  const digits = query.replace(/\D/g, "");
  // Only a query that is mostly a number searches by digits (a name with a digit in it is not a phone number).
  const digitsOnly = digits.length >= 4 && digits.length >= query.replace(/[\s()+.-]/g, "").length - 4 ? digits : null;

  const conditions: SQL[] = [
    eq(sequences.id, query),
    sql`exists (select 1 from ${calls} where ${calls.sequenceId} = ${sequences.id} and ${calls.organizationId} = ${params.organizationId} and ${calls.id} = ${query})`,
    sql`${sequences.name} ilike ${like}`,
    sql`${sequences.toEmailAddress} ilike ${like}`,
    sql`exists (select 1 from jsonb_each_text(${sequences.customInputVariables}) as v where v.value ilike ${like})`,
  ];
  if (phone) conditions.push(eq(sequences.phoneNumber, phone.e164));
  if (digitsOnly) conditions.push(sql`regexp_replace(${sequences.phoneNumber}, '\\D', '', 'g') like ${`%${digitsOnly}%`}`);

  const rows = await db
    .select({
      id: sequences.id,
      name: sequences.name,
      phoneNumber: sequences.phoneNumber,
      email: sequences.toEmailAddress,
      timezone: sequences.timezone,
      variables: sequences.customInputVariables,
      lifecycleStatus: sequences.lifecycleStatus,
      agentId: agents.id,
      agentName: agents.name,
    })
    .from(sequences)
    .innerJoin(agents, eq(agents.id, sequences.agentId))
    .where(and(eq(sequences.organizationId, params.organizationId), or(...conditions)))
    .orderBy(desc(sequences.updatedAt), desc(sequences.id))
    .limit(params.limit);
  if (rows.length === 0) return { results: [] };

  const callRows = await db
    .select({
      id: calls.id,
      sequenceId: calls.sequenceId,
      resultType: calls.resultType,
      scheduledAt: calls.scheduledAt,
      endedAt: calls.endedAt,
      followUp: calls.followUpMeetingDetails,
      scheduling: calls.crmSchedulingDetails,
    })
    .from(calls)
    .where(and(eq(calls.organizationId, params.organizationId), inArray(calls.sequenceId, rows.map((row) => row.id))))
    .orderBy(asc(calls.sequenceId), asc(calls.scheduledAt), asc(calls.stepNumber), asc(calls.attempt));
  const callsBySequence = new Map<string, typeof callRows>();
  for (const call of callRows) callsBySequence.set(call.sequenceId, [...(callsBySequence.get(call.sequenceId) ?? []), call]);

  const lowerQuery = query.toLowerCase();
  const results = rows.map((row): CustomerMatch => {
    const sequenceCalls = callsBySequence.get(row.id) ?? [];
    const matchedCall = sequenceCalls.find((call) => call.id === query);
    const variable = Object.entries(row.variables ?? {}).find(([, value]) => String(value).toLowerCase().includes(lowerQuery));
    const matchedOn: CustomerMatchField[] = [];
    if (row.id === query || matchedCall) matchedOn.push("id");
    if ((phone && row.phoneNumber === phone.e164) || (digitsOnly && row.phoneNumber.replace(/\D/g, "").includes(digitsOnly))) matchedOn.push("phone");
    if (row.name.toLowerCase().includes(lowerQuery)) matchedOn.push("name");
    if (row.email?.toLowerCase().includes(lowerQuery)) matchedOn.push("email");
    if (variable) matchedOn.push("variable");
    const done = sequenceCalls.filter((call) => call.resultType !== "Scheduled");
    const last = done.at(-1);
    const next = sequenceCalls.find((call) => call.resultType === "Scheduled");
    const booked = sequenceCalls.filter((call) => call.followUp && call.scheduling?.bookingUid).at(-1);
    return {
      sequenceId: row.id,
      callId: matchedCall?.id ?? null,
      matchedOn,
      matchedVariable: variable ? { name: variable[0], value: String(variable[1]) } : null,
      contact: { name: row.name, phoneNumber: row.phoneNumber, email: row.email, timezone: row.timezone },
      agent: { agentId: row.agentId, name: row.agentName },
      lifecycleStatus: row.lifecycleStatus,
      lastCall: last ? { callId: last.id, resultType: last.resultType, at: (last.endedAt ?? last.scheduledAt).toISOString() } : null,
      nextCall: next ? { callId: next.id, scheduledAt: next.scheduledAt.toISOString() } : null,
      meeting: booked
        ? { callId: booked.id, startTime: booked.followUp!.startTime, status: booked.scheduling.status === "cancelled" ? "cancelled" : "booked" }
        : null,
    };
  });
  return { results };
}
