import { and, eq } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { optOuts } from "@/db/schema";
import { AppError } from "@/server/errors";
import { requireSuppressionNumber } from "./suppression-number";

export type RemoveSuppressionParams = { organizationId: string; phoneNumber: string };

/**
 * DELETE /suppressions/{phoneNumber}: takes a number off the list (it can be enrolled and dialed again).
 * 400 INVALID_PHONE_NUMBER when the path is not a number; 404 SUPPRESSION_NOT_FOUND when it is not on this
 * organization's list (another organization's entry is never touched).
 */
export async function removeSuppression(db: DbOrTx, params: RemoveSuppressionParams): Promise<{ success: true }> {
  const e164 = requireSuppressionNumber(params.phoneNumber, "phoneNumber");
  const deleted = await db
    .delete(optOuts)
    .where(and(eq(optOuts.organizationId, params.organizationId), eq(optOuts.phoneNumber, e164)))
    .returning({ phoneNumber: optOuts.phoneNumber });
  if (deleted.length === 0) throw new AppError("SUPPRESSION_NOT_FOUND", `${e164} is not on this organization's suppression list.`);
  return { success: true };
}
