import { and, desc, eq, isNotNull } from "drizzle-orm";
import { DateTime } from "luxon";
import type { DbOrTx } from "@/db";
import { calls, type sequences } from "@/db/schema";

type SequenceRow = typeof sequences.$inferSelect;

/** "Tuesday, March 3 at 10:00 AM EST": a meeting's start as the contact reads it, in their zone. */
export function formatMeetingTime(startTime: string, timezone: string): string {
  const start = DateTime.fromISO(startTime, { zone: timezone });
  return start.isValid ? start.toFormat("cccc, LLLL d 'at' h:mm a ZZZZ") : "";
}

/**
 * The values of a message's template variables (docs/sequences.md "Templates"): the contact, the agent, the
 * sequence's input variables, and what its calls produced so far — the latest analysed call's summary, and the
 * latest booked meeting that was not cancelled (its start in the contact's zone, its link).
 */
export async function buildTemplateValues(db: DbOrTx, params: { sequence: SequenceRow; agentName: string }): Promise<Record<string, string>> {
  const { sequence } = params;
  const analysed = await db
    .select({ summary: calls.summary, meeting: calls.followUpMeetingDetails, scheduling: calls.crmSchedulingDetails })
    .from(calls)
    .where(and(eq(calls.sequenceId, sequence.id), isNotNull(calls.analyzedAt)))
    .orderBy(desc(calls.endedAt), desc(calls.stepNumber));
  const summary = analysed.find((call) => call.summary.trim() !== "")?.summary ?? "";
  const booked = analysed.find((call) => call.meeting && call.scheduling.status !== "cancelled")?.meeting ?? null;
  return {
    ...sequence.customInputVariables,
    name: sequence.name,
    first_name: sequence.name.trim().split(/\s+/)[0] ?? "",
    agent_name: params.agentName,
    last_call_summary: summary,
    meeting_time: booked ? formatMeetingTime(booked.startTime, sequence.timezone) : "",
    meeting_link: booked?.meetingLink ?? "",
  };
}
