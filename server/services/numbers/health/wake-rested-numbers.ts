import { and, asc, eq, inArray, isNull, lte, or } from "drizzle-orm";
import type { Db } from "@/db";
import { numberHealthMonitors, numbers } from "@/db/schema";
import { getConfig } from "@/server/config/env";
import { getLogger } from "@/server/observability/logger";
import { changeNumberHealth, type NumberHealthChange } from "./change-number-health";
import { backFromRestReason } from "./evaluate-number-health";
import { saveHealthMonitor } from "./health-monitor-store";
import { EMPTY_MONITOR } from "./health-rule";

export type WakeRestedNumbersParams = {
  now: Date;
  /** Only these organizations (tests share one database); all by default. */
  organizationIds?: string[];
  /** Numbers per call (default 200); the sweep runs again shortly. */
  limit?: number;
};

/**
 * Brings back, under `watch`, every resting number whose rest is over (`restingUntil` ≤ now): its health and reason,
 * a fresh monitor, one `number.health_changed` event and its webhook deliveries, one number per transaction, written
 * only at the monitor version read with it (a call's judgement that woke it first leaves nothing to do here). Run by the
 * number-health sweep (inngest/functions/number-health-sweep.ts) every 5 minutes; evaluations also wake a number
 * lazily. Returns the changes and the deliveries whose attempts the caller requests.
 */
export async function wakeRestedNumbers(db: Db, params: WakeRestedNumbersParams): Promise<{ changes: NumberHealthChange[]; deliveryIds: string[] }> {
  const { now } = params;
  if (params.organizationIds && params.organizationIds.length === 0) return { changes: [], deliveryIds: [] };
  const due = await db
    .select({ id: numbers.id, organizationId: numbers.organizationId })
    .from(numbers)
    .where(
      and(
        eq(numbers.health, "resting"),
        or(isNull(numbers.restingUntil), lte(numbers.restingUntil, now)),
        params.organizationIds ? inArray(numbers.organizationId, params.organizationIds) : undefined,
      ),
    )
    .orderBy(asc(numbers.restingUntil))
    .limit(params.limit ?? 200);
  const changes: NumberHealthChange[] = [];
  const deliveryIds: string[] = [];
  for (const candidate of due) {
    const woken = await db.transaction(async (tx) => {
      // The number and its monitor's version in one read: a call's judgement that woke it first bumped the version.
      const [number] = await tx
        .select({ number: numbers, version: numberHealthMonitors.version })
        .from(numbers)
        .leftJoin(numberHealthMonitors, eq(numberHealthMonitors.numberId, numbers.id))
        .where(eq(numbers.id, candidate.id))
        .limit(1)
        .then((rows) => rows.map((row) => ({ ...row.number, monitorVersion: row.version })));
      if (!number || number.health !== "resting" || (number.restingUntil && number.restingUntil > now)) return null;
      if (!(await saveHealthMonitor(tx, { numberId: number.id, organizationId: number.organizationId, monitor: EMPTY_MONITOR, version: number.monitorVersion, now }))) return null;
      const changed = await changeNumberHealth(tx, {
        organizationId: number.organizationId,
        numberId: number.id,
        phoneNumber: number.phoneNumber,
        from: "resting",
        to: "watch",
        reason: backFromRestReason(),
        evidence: null,
        now,
        restHours: getConfig().NUMBER_REST_HOURS,
      });
      return changed;
    });
    if (!woken) continue;
    changes.push(woken.change);
    deliveryIds.push(...woken.deliveryIds);
  }
  if (changes.length > 0) getLogger("numbers").info({ numbers: changes.map((change) => change.numberId) }, "rested numbers back under watch");
  return { changes, deliveryIds };
}
