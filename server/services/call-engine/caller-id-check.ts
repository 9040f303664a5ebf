import { and, asc, eq, inArray, sql } from "drizzle-orm";
import type { Tx } from "@/db";
import { numbers } from "@/db/schema";
import { getConfig } from "@/server/config/env";
import { pickFromPhoneNumber } from "./call-context";
import type { DialCandidate, DialCheck, GateVerdict } from "./dial-check";

/** The UTC day a daily cap counts in. */
export function dialDayOf(now: Date): string {
  return now.toISOString().slice(0, 10);
}

type CallerIdRow = { id: string; organizationId: string; phoneNumber: string; dailyCallCap: number | null; dialedDay: string | null; dialedCount: number };

/** The pools' numbers that may place calls now (active, voice, not resting), locked in a fixed order for the counts. */
async function lockCallableNumbers(tx: Tx, candidates: DialCandidate[], now: Date): Promise<CallerIdRow[]> {
  const organizationIds = [...new Set(candidates.map(({ call }) => call.organizationId))];
  const pooled = [...new Set(candidates.flatMap(({ agent }) => agent.phoneNumbers))];
  if (pooled.length === 0) return [];
  return tx
    .select({ id: numbers.id, organizationId: numbers.organizationId, phoneNumber: numbers.phoneNumber, dailyCallCap: numbers.dailyCallCap, dialedDay: numbers.dialedDay, dialedCount: numbers.dialedCount })
    .from(numbers)
    .where(
      and(
        inArray(numbers.organizationId, organizationIds),
        inArray(numbers.phoneNumber, pooled),
        eq(numbers.status, "active"),
        eq(numbers.voice, true),
        sql`(${numbers.restingUntil} is null or ${numbers.restingUntil} <= ${now.toISOString()}::timestamptz)`,
      ),
    )
    .orderBy(asc(numbers.id))
    .for("update");
}

/**
 * The caller ID (docs/numbers.md): a call goes out only from a number of its agent's pool that the organization owns
 * (active), that places calls, is not resting and is under its daily cap — the local one first, then spread by the
 * contact's number (`pickFromPhoneNumber`), so a contact always sees the same number. Trust boundary: whatever a pool
 * holds, no other number is ever dialed from. A pool with no such number waits: moved CALL_PAUSED_RECHECK_SECONDS
 * on (`no-callable-number`: none owned, or all resting), or to the next UTC day when every number reached its cap
 * (`number-daily-cap`). Calls of this round that pass count against the caps of the ones after them; the counts are
 * written with the claim (`countDialsByNumber`).
 */
export const callerIdCheck: DialCheck = {
  name: "caller-id",
  run: async ({ tx, now }, candidates) => {
    const verdicts = new Map<string, GateVerdict>();
    if (candidates.length === 0) return verdicts;
    const day = dialDayOf(now);
    const rows = await lockCallableNumbers(tx, candidates, now);
    const byKey = new Map(rows.map((row) => [`${row.organizationId} ${row.phoneNumber}`, { row, count: row.dialedDay === day ? row.dialedCount : 0 }]));
    const defaultCap = getConfig().NUMBER_DAILY_CALL_CAP;
    const recheck = new Date(now.getTime() + getConfig().CALL_PAUSED_RECHECK_SECONDS * 1000);
    const nextDay = new Date(`${day}T00:00:00.000Z`);
    nextDay.setUTCDate(nextDay.getUTCDate() + 1);
    for (const candidate of candidates) {
      const owned = candidate.agent.phoneNumbers.flatMap((phoneNumber) => byKey.get(`${candidate.call.organizationId} ${phoneNumber}`) ?? []);
      if (owned.length === 0) {
        verdicts.set(candidate.call.id, { action: "defer", until: recheck, reason: "no-callable-number" });
        continue;
      }
      const open = owned.filter((entry) => entry.count < (entry.row.dailyCallCap ?? defaultCap));
      if (open.length === 0) {
        verdicts.set(candidate.call.id, { action: "defer", until: nextDay, reason: "number-daily-cap" });
        continue;
      }
      const from = pickFromPhoneNumber(open.map((entry) => entry.row.phoneNumber), candidate.sequence.phoneNumber);
      open.find((entry) => entry.row.phoneNumber === from)!.count += 1;
      candidate.fromPhoneNumber = from;
    }
    return verdicts;
  },
};

/** The claimed calls count against their numbers' daily caps (rows locked by `callerIdCheck` in this transaction). */
export async function countDialsByNumber(tx: Tx, dialed: Array<{ organizationId: string; phoneNumber: string | null }>, now: Date): Promise<void> {
  const counts = new Map<string, { organizationId: string; phoneNumber: string; count: number }>();
  for (const { organizationId, phoneNumber } of dialed) {
    if (!phoneNumber) continue;
    const key = `${organizationId} ${phoneNumber}`;
    const entry = counts.get(key) ?? { organizationId, phoneNumber, count: 0 };
    entry.count += 1;
    counts.set(key, entry);
  }
  if (counts.size === 0) return;
  const day = dialDayOf(now);
  const rows = [...counts.values()].map((entry) => sql`(${entry.organizationId}, ${entry.phoneNumber}, ${entry.count}::int)`);
  await tx.execute(sql`
    update numbers as n set
      dialed_count = case when n.dialed_day = ${day} then n.dialed_count + v.count else v.count end,
      dialed_day = ${day}
    from (values ${sql.join(rows, sql`, `)}) as v(organization_id, phone_number, count)
    where n.organization_id = v.organization_id and n.phone_number = v.phone_number and n.status = 'active'`);
}
