import { and, eq, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { numberHealthMonitors, type NumberHealthState } from "@/db/schema";
import type { PeerCounts, HealthMonitor } from "./health-rule";
import { EMPTY_MONITOR } from "./health-rule";

type MonitorRow = typeof numberHealthMonitors.$inferSelect;

function toMonitor(row: Pick<MonitorRow, "restStatistic" | "restCalls" | "restAnswered" | "restExpected" | "watchStatistic" | "watchCalls" | "watchAnswered" | "watchExpected" | "stateCalls" | "stateAnswered" | "stateExpected">): HealthMonitor {
  return {
    rest: { statistic: row.restStatistic, calls: row.restCalls, answered: row.restAnswered, expected: row.restExpected },
    watch: { statistic: row.watchStatistic, calls: row.watchCalls, answered: row.watchAnswered, expected: row.watchExpected },
    state: { calls: row.stateCalls, answered: row.stateAnswered, expected: row.stateExpected },
  };
}

export type NumberUnderJudgement = {
  numberId: string;
  health: NumberHealthState;
  restingUntil: Date | null;
  monitor: HealthMonitor;
  /** The monitor's version as read; null: the number has no monitor yet. */
  version: number | null;
  peers: PeerCounts;
};

/**
 * In one statement, without a lock: the organization's live row of `phoneNumber` (the active one first), its
 * monitor and version, and its peers' answer counts (the organization's other numbers on the days from `sinceDay`:
 * all their answerable calls, and those of `stratum`). Null when the organization does not hold the number.
 */
export async function readNumberForJudgement(
  db: DbOrTx,
  params: { organizationId: string; phoneNumber: string; stratum: string; sinceDay: string },
): Promise<NumberUnderJudgement | null> {
  const rows = await db.execute<Record<string, unknown>>(sql`
    select n.id, n.health, n.resting_until, m.version,
      m.rest_statistic, m.rest_calls, m.rest_answered, m.rest_expected, m.watch_statistic, m.watch_calls, m.watch_answered,
      m.watch_expected, m.state_calls, m.state_answered, m.state_expected, p.calls, p.answered, p.stratum_calls, p.stratum_answered
    from numbers n
    left join number_health_monitors m on m.number_id = n.id
    cross join lateral (
      select coalesce(sum(s.answered + s.voicemail + s.no_answer + s.busy), 0)::int as calls, coalesce(sum(s.answered), 0)::int as answered,
        coalesce(sum((s.strata -> ${params.stratum}::text ->> 0)::int), 0)::int as stratum_calls,
        coalesce(sum((s.strata -> ${params.stratum}::text ->> 1)::int), 0)::int as stratum_answered
      from number_daily_stats s
      where s.organization_id = ${params.organizationId} and s.day >= ${params.sinceDay}::date and s.phone_number <> ${params.phoneNumber}
    ) p
    where n.organization_id = ${params.organizationId} and n.phone_number = ${params.phoneNumber} and n.status <> 'released'
    order by (n.status = 'active') desc
    limit 1`);
  const row = rows[0];
  if (!row) return null;
  const version = row.version === null || row.version === undefined ? null : Number(row.version);
  const restingUntil = row.resting_until === null || row.resting_until === undefined ? null : new Date(row.resting_until as string | Date);
  return {
    numberId: String(row.id),
    health: row.health as NumberHealthState,
    restingUntil,
    version,
    monitor:
      version === null
        ? EMPTY_MONITOR
        : toMonitor({
            restStatistic: Number(row.rest_statistic),
            restCalls: Number(row.rest_calls),
            restAnswered: Number(row.rest_answered),
            restExpected: Number(row.rest_expected),
            watchStatistic: Number(row.watch_statistic),
            watchCalls: Number(row.watch_calls),
            watchAnswered: Number(row.watch_answered),
            watchExpected: Number(row.watch_expected),
            stateCalls: Number(row.state_calls),
            stateAnswered: Number(row.state_answered),
            stateExpected: Number(row.state_expected),
          }),
    peers: {
      all: { calls: Number(row.calls), answered: Number(row.answered) },
      stratum: { calls: Number(row.stratum_calls), answered: Number(row.stratum_answered) },
    },
  };
}

/** The monitor's version now (null: none yet). */
export async function findMonitorVersion(db: DbOrTx, numberId: string): Promise<number | null> {
  const [row] = await db.select({ version: numberHealthMonitors.version }).from(numberHealthMonitors).where(eq(numberHealthMonitors.numberId, numberId));
  return row?.version ?? null;
}

/**
 * Writes the monitor if it is still at `version` as read (null: it did not exist yet), bumping the version. False
 * when another writer got there first: the caller reads again and redoes its step.
 */
export async function saveHealthMonitor(
  db: DbOrTx,
  params: { numberId: string; organizationId: string; monitor: HealthMonitor; version: number | null; now: Date },
): Promise<boolean> {
  const { rest, watch, state } = params.monitor;
  const values = {
    restStatistic: rest.statistic,
    restCalls: rest.calls,
    restAnswered: rest.answered,
    restExpected: rest.expected,
    watchStatistic: watch.statistic,
    watchCalls: watch.calls,
    watchAnswered: watch.answered,
    watchExpected: watch.expected,
    stateCalls: state.calls,
    stateAnswered: state.answered,
    stateExpected: state.expected,
    updatedAt: params.now,
  };
  if (params.version === null) {
    const inserted = await db
      .insert(numberHealthMonitors)
      .values({ numberId: params.numberId, organizationId: params.organizationId, ...values, version: 1 })
      .onConflictDoNothing()
      .returning({ version: numberHealthMonitors.version });
    return inserted.length > 0;
  }
  const updated = await db
    .update(numberHealthMonitors)
    .set({ ...values, version: params.version + 1 })
    .where(and(eq(numberHealthMonitors.numberId, params.numberId), eq(numberHealthMonitors.version, params.version)))
    .returning({ version: numberHealthMonitors.version });
  return updated.length > 0;
}
