import { eq } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { numberHealthMonitors } from "@/db/schema";
import type { HealthMonitor } from "./health-rule";

type MonitorRow = typeof numberHealthMonitors.$inferSelect;

function toMonitor(row: MonitorRow): HealthMonitor {
  return {
    rest: { statistic: row.restStatistic, calls: row.restCalls, answered: row.restAnswered, expected: row.restExpected },
    watch: { statistic: row.watchStatistic, calls: row.watchCalls, answered: row.watchAnswered, expected: row.watchExpected },
    state: { calls: row.stateCalls, answered: row.stateAnswered, expected: row.stateExpected },
  };
}

/**
 * The number's monitor, locked for the rest of the transaction (created empty the first time): every change of a
 * number's health and every call it is judged on goes through this lock, one at a time.
 */
export async function lockHealthMonitor(tx: DbOrTx, params: { numberId: string; organizationId: string; now: Date }): Promise<HealthMonitor> {
  await tx.insert(numberHealthMonitors).values({ numberId: params.numberId, organizationId: params.organizationId, updatedAt: params.now }).onConflictDoNothing();
  const [row] = await tx.select().from(numberHealthMonitors).where(eq(numberHealthMonitors.numberId, params.numberId)).for("update");
  return toMonitor(row!);
}

export async function saveHealthMonitor(tx: DbOrTx, params: { numberId: string; monitor: HealthMonitor; now: Date }): Promise<void> {
  const { rest, watch, state } = params.monitor;
  await tx
    .update(numberHealthMonitors)
    .set({
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
    })
    .where(eq(numberHealthMonitors.numberId, params.numberId));
}
