import { eq, inArray, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { calls, numberDailyStats, sequences, type ResultType } from "@/db/schema";
import { callStratum, statsDayOf } from "./call-stratum";

/** How a dialed call ended, for a number's counters (calls.disposition, written by the voice engine). */
export type NumberCallOutcome = "answered" | "voicemail" | "no-answer" | "busy" | "failed";

/** Calls shorter than this (answered by a person) are counted as short: people who hang up at once. */
export const SHORT_CALL_SECONDS = 10;

export function numberCallOutcomeOf(disposition: string | null): NumberCallOutcome {
  switch (disposition) {
    case "answered":
    case "voicemail":
    case "no-answer":
    case "busy":
      return disposition;
    default:
      // `failed`, `invalid-number`, or a call given up before the voice engine reported anything: it reached nobody.
      return "failed";
  }
}

/** Whether the call could have been answered by a person: the answer rate's denominator. */
export function isAnswerable(outcome: NumberCallOutcome): boolean {
  return outcome !== "failed";
}

export type RecordNumberCallParams = {
  organizationId: string;
  /** Our number the call was placed from (E.164). */
  phoneNumber: string;
  callId: string;
  dialedAt: Date;
  outcome: NumberCallOutcome;
  durationSeconds: number;
  optedOut: boolean;
  /** callStratum(…) of the call. */
  stratum: string;
  now: Date;
};

type CallFacts = {
  id: string;
  organizationId: string;
  direction: string;
  fromPhoneNumber: string;
  dialedAt: Date | null;
  disposition: string | null;
  duration: number;
};

/**
 * What a call with its final result counts on its number (null for calls that are not the number's: callbacks,
 * calls never dialed, calls without a caller ID).
 */
export function numberCallOf(call: CallFacts, params: { resultType: ResultType; contactPhoneNumber: string; timezone: string; now: Date }): RecordNumberCallParams | null {
  if (call.direction !== "outbound" || !call.fromPhoneNumber || !call.dialedAt) return null;
  return {
    organizationId: call.organizationId,
    phoneNumber: call.fromPhoneNumber,
    callId: call.id,
    dialedAt: call.dialedAt,
    outcome: numberCallOutcomeOf(call.disposition),
    durationSeconds: call.duration,
    optedOut: params.resultType === "Opted Out",
    stratum: callStratum({ contactPhoneNumber: params.contactPhoneNumber, timezone: params.timezone, at: call.dialedAt }),
    now: params.now,
  };
}

/**
 * Counts calls whose final result was written without counting them (the demo history: its long per-sequence
 * transactions would otherwise serialize on the numbers' day rows), one upsert each, outside any transaction.
 */
export async function recordNumberCallsOf(db: DbOrTx, params: { callIds: string[]; now: Date }): Promise<number> {
  if (params.callIds.length === 0) return 0;
  const rows = await db
    .select({ call: calls, contactPhoneNumber: sequences.phoneNumber, timezone: sequences.timezone })
    .from(calls)
    .innerJoin(sequences, eq(sequences.id, calls.sequenceId))
    .where(inArray(calls.id, params.callIds));
  let counted = 0;
  for (const row of rows) {
    const numberCall = numberCallOf(row.call, { resultType: row.call.resultType, contactPhoneNumber: row.contactPhoneNumber, timezone: row.timezone, now: params.now });
    if (!numberCall) continue;
    await recordNumberCall(db, numberCall);
    counted += 1;
  }
  return counted;
}

/**
 * Adds one ended outbound call to its number's counters of the day: one statement (an upsert that also reads the
 * call's STIR/SHAKEN attestation from twilio_calls, when the real voice engine placed it). Runs in the transaction
 * that writes the call's final result, so each call is counted exactly once.
 */
export async function recordNumberCall(db: DbOrTx, params: RecordNumberCallParams): Promise<void> {
  const answered = params.outcome === "answered" ? 1 : 0;
  const short = answered && params.durationSeconds < SHORT_CALL_SECONDS ? 1 : 0;
  const answerable = isAnswerable(params.outcome);
  const strata = answerable ? { [params.stratum]: [1, answered] } : {};
  const count = (outcome: NumberCallOutcome) => (params.outcome === outcome ? 1 : 0);
  const s = sql.raw("s");
  await db.execute(sql`
    insert into ${numberDailyStats} as s (organization_id, phone_number, day, placed, answered, short_calls, voicemail, no_answer, busy, failed,
      opt_outs, attestation_a, attestation_b, attestation_c, strata, updated_at)
    select ${params.organizationId}, ${params.phoneNumber}, ${statsDayOf(params.dialedAt)}::date, 1, ${answered}::int, ${short}::int,
      ${count("voicemail")}::int, ${count("no-answer")}::int, ${count("busy")}::int, ${count("failed")}::int, ${params.optedOut ? 1 : 0}::int,
      (t.stir_status is not distinct from 'A')::int, (t.stir_status is not distinct from 'B')::int, (t.stir_status is not distinct from 'C')::int,
      ${JSON.stringify(strata)}::jsonb, ${params.now.toISOString()}::timestamptz
    from (select 1) as one left join twilio_calls t on t.call_id = ${params.callId}
    on conflict (organization_id, phone_number, day) do update set
      placed = ${s}.placed + 1,
      answered = ${s}.answered + excluded.answered,
      short_calls = ${s}.short_calls + excluded.short_calls,
      voicemail = ${s}.voicemail + excluded.voicemail,
      no_answer = ${s}.no_answer + excluded.no_answer,
      busy = ${s}.busy + excluded.busy,
      failed = ${s}.failed + excluded.failed,
      opt_outs = ${s}.opt_outs + excluded.opt_outs,
      attestation_a = ${s}.attestation_a + excluded.attestation_a,
      attestation_b = ${s}.attestation_b + excluded.attestation_b,
      attestation_c = ${s}.attestation_c + excluded.attestation_c,
      strata = case when ${answerable}::boolean then jsonb_set(${s}.strata, array[${params.stratum}::text],
        jsonb_build_array(coalesce((${s}.strata -> ${params.stratum}::text ->> 0)::int, 0) + 1, coalesce((${s}.strata -> ${params.stratum}::text ->> 1)::int, 0) + ${answered}::int))
        else ${s}.strata end,
      updated_at = excluded.updated_at`);
}

/** An SMS STOP (or a variant) sent to one of our numbers: counted on the number's day. */
export async function recordNumberStop(db: DbOrTx, params: { organizationId: string; phoneNumber: string; now: Date }): Promise<void> {
  await db.execute(sql`
    insert into ${numberDailyStats} as s (organization_id, phone_number, day, stops, updated_at)
    values (${params.organizationId}, ${params.phoneNumber}, ${statsDayOf(params.now)}::date, 1, ${params.now.toISOString()}::timestamptz)
    on conflict (organization_id, phone_number, day) do update set stops = s.stops + 1, updated_at = excluded.updated_at`);
}
