import type { DbOrTx } from "@/db";
import { findOrganizationNumbers } from "@/db/queries/numbers";
import type { TNumber } from "@/server/routers/numbers/number.schema";
import { findPoolHolders, toNumberView } from "./number-view";

/** The organization's numbers (released ones left out), with their health and the agents pooling them. */
export async function listNumbers(db: DbOrTx, params: { organizationId: string }): Promise<{ numbers: TNumber[] }> {
  const [rows, holders] = await Promise.all([findOrganizationNumbers(db, params.organizationId), findPoolHolders(db, params.organizationId)]);
  return { numbers: rows.map((row) => toNumberView(row, holders.get(row.phoneNumber) ?? [])) };
}
