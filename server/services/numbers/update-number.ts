import { and, eq } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { findOrganizationNumber } from "@/db/queries/numbers";
import { numbers } from "@/db/schema";
import { AppError } from "@/server/errors";
import type { TNumber } from "@/server/routers/numbers/number.schema";
import { findPoolHolders, toNumberView } from "./number-view";

/** The number's own daily call cap (null: the deployment's default). */
export async function updateNumber(db: DbOrTx, params: { organizationId: string; numberId: string; dailyCallCap?: number | null; now: Date }): Promise<TNumber> {
  const row = await findOrganizationNumber(db, params);
  if (!row || row.status === "released") throw new AppError("NUMBER_NOT_FOUND", `Number ${params.numberId} was not found.`);
  const [updated] = await db
    .update(numbers)
    .set({ ...(params.dailyCallCap !== undefined ? { dailyCallCap: params.dailyCallCap } : {}), updatedAt: params.now })
    .where(and(eq(numbers.id, row.id), eq(numbers.organizationId, params.organizationId)))
    .returning();
  const holders = await findPoolHolders(db, params.organizationId);
  return toNumberView(updated!, holders.get(row.phoneNumber) ?? []);
}

/** One of the organization's numbers, released ones included (a validation's outcome stays visible). */
export async function getNumber(db: DbOrTx, params: { organizationId: string; numberId: string }): Promise<TNumber> {
  const row = await findOrganizationNumber(db, params);
  if (!row) throw new AppError("NUMBER_NOT_FOUND", `Number ${params.numberId} was not found.`);
  const holders = await findPoolHolders(db, params.organizationId);
  return toNumberView(row, holders.get(row.phoneNumber) ?? []);
}
