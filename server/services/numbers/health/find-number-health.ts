import { and, asc, eq, inArray, ne } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { numbers, type NumberHealthState, type NumberStatus } from "@/db/schema";
import { findNumberDailyStats } from "@/db/queries/number-health";
import { getConfig } from "@/server/config/env";
import { AppError } from "@/server/errors";
import { statsDayOf } from "./call-stratum";

export const MAX_HEALTH_DAYS = 90;

export type NumberHealthDay = {
  /** UTC day, `YYYY-MM-DD`. */
  day: string;
  placed: number;
  answered: number;
  shortCalls: number;
  voicemail: number;
  noAnswer: number;
  busy: number;
  failed: number;
  optOuts: number;
  stops: number;
  /** Calls by the STIR/SHAKEN attestation the carrier reported; `none`: no attestation reported (or not the real voice engine). */
  attestation: { A: number; B: number; C: number; none: number };
  /** Answered by a person ÷ calls that could be answered (answered, voicemail, no answer, busy); null without such calls. */
  answerRate: number | null;
};

export type NumberHealthView = {
  numberId: string;
  phoneNumber: string;
  status: NumberStatus;
  health: NumberHealthState;
  healthReason: string | null;
  healthChangedAt: string | null;
  restingUntil: string | null;
  /** The number's own cap, else NUMBER_DAILY_CALL_CAP. */
  dailyCallCap: number;
  /** The dialer may use it now: active, voice, and not resting (or its rest is over). */
  inRotation: boolean;
  /** One entry per UTC day of the period, oldest first, days without calls included (zeros). */
  days: NumberHealthDay[];
};

export type FindNumberHealthParams = {
  organizationId: string;
  /** Only these numbers (IDs of the organization's numbers; others are left out); default: every live number. */
  numberIds?: string[];
  /** Days of history, today (UTC) included: 1–90. */
  days: number;
  now?: Date;
};

function emptyDay(day: string): NumberHealthDay {
  return { day, placed: 0, answered: 0, shortCalls: 0, voicemail: 0, noAnswer: 0, busy: 0, failed: 0, optOuts: 0, stops: 0, attestation: { A: 0, B: 0, C: 0, none: 0 }, answerRate: null };
}

/**
 * The organization's numbers with their health (state, reason in words, when it changed, rest) and their daily
 * counters over the last `days` UTC days (docs/numbers.md "Number health"): what the Numbers page charts and the
 * API returns. Scoped to the organization: IDs of another organization's numbers are left out. Released numbers are
 * listed only when asked for by ID. 400 INVALID_REQUEST when `days` is outside 1–90.
 */
export async function findNumberHealth(db: DbOrTx, params: FindNumberHealthParams): Promise<NumberHealthView[]> {
  if (!Number.isInteger(params.days) || params.days < 1 || params.days > MAX_HEALTH_DAYS) {
    throw new AppError("INVALID_REQUEST", `days: a whole number from 1 to ${MAX_HEALTH_DAYS}.`);
  }
  if (params.numberIds && params.numberIds.length === 0) return [];
  const now = params.now ?? new Date();
  const rows = await db
    .select()
    .from(numbers)
    .where(
      and(
        eq(numbers.organizationId, params.organizationId),
        params.numberIds ? inArray(numbers.id, [...new Set(params.numberIds)]) : ne(numbers.status, "released"),
      ),
    )
    .orderBy(asc(numbers.phoneNumber), asc(numbers.createdAt));
  const dayList = Array.from({ length: params.days }, (_, index) => statsDayOf(new Date(now.getTime() - (params.days - 1 - index) * 86_400_000)));
  const stats = await findNumberDailyStats(db, { organizationId: params.organizationId, phoneNumbers: [...new Set(rows.map((row) => row.phoneNumber))], sinceDay: dayList[0]! });
  const byNumberDay = new Map(stats.map((row) => [`${row.phoneNumber}|${row.day}`, row]));
  const defaultCap = getConfig().NUMBER_DAILY_CALL_CAP;
  return rows.map((row) => ({
    numberId: row.id,
    phoneNumber: row.phoneNumber,
    status: row.status,
    health: row.health,
    healthReason: row.healthReason,
    healthChangedAt: row.healthChangedAt?.toISOString() ?? null,
    restingUntil: row.restingUntil?.toISOString() ?? null,
    dailyCallCap: row.dailyCallCap ?? defaultCap,
    inRotation: row.status === "active" && row.voice && (row.restingUntil === null || row.restingUntil <= now),
    days: dayList.map((day) => {
      const stat = byNumberDay.get(`${row.phoneNumber}|${day}`);
      if (!stat) return emptyDay(day);
      const answerable = stat.answered + stat.voicemail + stat.noAnswer + stat.busy;
      return {
        day,
        placed: stat.placed,
        answered: stat.answered,
        shortCalls: stat.shortCalls,
        voicemail: stat.voicemail,
        noAnswer: stat.noAnswer,
        busy: stat.busy,
        failed: stat.failed,
        optOuts: stat.optOuts,
        stops: stat.stops,
        attestation: { A: stat.attestationA, B: stat.attestationB, C: stat.attestationC, none: Math.max(0, stat.placed - stat.attestationA - stat.attestationB - stat.attestationC) },
        answerRate: answerable > 0 ? stat.answered / answerable : null,
      };
    }),
  }));
}
