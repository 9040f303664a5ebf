import { and, asc, desc, eq, sql, type SQL } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { agents, calls, sequences } from "@/db/schema";
import { containsPattern } from "@/db/queries/like";

export type ListMeetingsParams = {
  /** Verified organization of the caller: only its calls are read. */
  organizationId: string;
  agentId?: string;
  /** Our stored status (`crmSchedulingDetails.status`, reconciled from the provider after changes). */
  status?: "booked" | "cancelled";
  /** Upcoming: starts after `now`; past: started before it. */
  when?: "upcoming" | "past";
  /** Start time range, inclusive of `from`, exclusive of `to`. */
  from?: Date;
  to?: Date;
  /** Part of the host's email address. */
  host?: string;
  limit: number;
  offset: number;
  now: Date;
};

export type MeetingRow = {
  callId: string;
  sequenceId: string;
  contact: { name: string; phoneNumber: string; timezone: string };
  agent: { agentId: string; name: string };
  startTime: string;
  endTime: string;
  hostEmail: string;
  meetingLink: string;
  status: "booked" | "cancelled";
  mode: string | null;
  bookingUid: string;
  cancelledAt: string | null;
  /** Start time has passed (started or over): no cancelling, no new attendees. */
  started: boolean;
};

/**
 * The meetings booked during the organization's calls, from our records (the provider is asked live per meeting, on
 * demand, by getMeetingState). Upcoming meetings soonest first; otherwise the most recent start first.
 */
export async function listMeetings(db: DbOrTx, params: ListMeetingsParams): Promise<{ meetings: MeetingRow[]; total: number }> {
  const start = sql`(${calls.followUpMeetingDetails} ->> 'startTime')::timestamptz`;
  const conditions: SQL[] = [
    eq(calls.organizationId, params.organizationId),
    sql`${calls.followUpMeetingDetails} is not null`,
    sql`${calls.crmSchedulingDetails} ? 'bookingUid'`,
  ];
  if (params.agentId) conditions.push(eq(calls.agentId, params.agentId));
  if (params.status === "cancelled") conditions.push(sql`${calls.crmSchedulingDetails} ->> 'status' = 'cancelled'`);
  if (params.status === "booked") conditions.push(sql`coalesce(${calls.crmSchedulingDetails} ->> 'status', 'booked') <> 'cancelled'`);
  if (params.when === "upcoming") conditions.push(sql`${start} > ${params.now.toISOString()}::timestamptz`);
  if (params.when === "past") conditions.push(sql`${start} <= ${params.now.toISOString()}::timestamptz`);
  if (params.from) conditions.push(sql`${start} >= ${params.from.toISOString()}::timestamptz`);
  if (params.to) conditions.push(sql`${start} < ${params.to.toISOString()}::timestamptz`);
  if (params.host) conditions.push(sql`${calls.followUpMeetingDetails} ->> 'hostEmail' ilike ${containsPattern(params.host)}`);
  const where = and(...conditions);

  const [rows, [count]] = await Promise.all([
    db
      .select({
        callId: calls.id,
        sequenceId: calls.sequenceId,
        followUp: calls.followUpMeetingDetails,
        scheduling: calls.crmSchedulingDetails,
        name: sequences.name,
        phoneNumber: sequences.phoneNumber,
        timezone: sequences.timezone,
        agentId: agents.id,
        agentName: agents.name,
      })
      .from(calls)
      .innerJoin(sequences, eq(sequences.id, calls.sequenceId))
      .innerJoin(agents, eq(agents.id, calls.agentId))
      .where(where)
      .orderBy(params.when === "upcoming" ? asc(start) : desc(start), asc(calls.id))
      .limit(params.limit)
      .offset(params.offset),
    db.select({ total: sql<number>`count(*)::int` }).from(calls).where(where),
  ]);
  return {
    total: count?.total ?? 0,
    meetings: rows.map((row) => ({
      callId: row.callId,
      sequenceId: row.sequenceId,
      contact: { name: row.name, phoneNumber: row.phoneNumber, timezone: row.timezone },
      agent: { agentId: row.agentId, name: row.agentName },
      startTime: row.followUp!.startTime,
      endTime: row.followUp!.endTime,
      hostEmail: row.followUp!.hostEmail,
      meetingLink: row.followUp!.meetingLink,
      status: row.scheduling.status === "cancelled" ? "cancelled" : "booked",
      mode: row.scheduling.mode ?? null,
      bookingUid: row.scheduling.bookingUid!,
      cancelledAt: row.scheduling.cancelledAt ?? null,
      started: Date.parse(row.followUp!.startTime) <= params.now.getTime(),
    })),
  };
}
