import type { DbOrTx } from "@/db";
import { AppError } from "@/server/errors";
import type { TGetNumberDaysResponse } from "@/server/routers/numbers/numbers.schema";
import { findNumberHealth } from "./health";

export type FindNumberDaysParams = { organizationId: string; numberId: string; days: number; now?: Date };

/**
 * One of the organization's numbers with its health and its daily counters over the last `days` UTC days (today
 * included): what the Numbers page charts. 404 NUMBER_NOT_FOUND for an unknown ID and for another organization's
 * number (findNumberHealth leaves those out); 400 INVALID_REQUEST for `days` outside 1–90.
 */
export async function findNumberDays(db: DbOrTx, params: FindNumberDaysParams): Promise<TGetNumberDaysResponse> {
  const [view] = await findNumberHealth(db, { organizationId: params.organizationId, numberIds: [params.numberId], days: params.days, now: params.now });
  if (!view) throw new AppError("NUMBER_NOT_FOUND", `Number ${params.numberId} was not found.`);
  return {
    numberId: view.numberId,
    phoneNumber: view.phoneNumber,
    health: { state: view.health, reason: view.healthReason, changedAt: view.healthChangedAt, restingUntil: view.restingUntil },
    dailyCallCap: view.dailyCallCap,
    inRotation: view.inRotation,
    days: view.days,
  };
}
