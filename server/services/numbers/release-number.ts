import { and, eq } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { findOrganizationNumber } from "@/db/queries/numbers";
import { numbers, phoneNumberSettings } from "@/db/schema";
import { AppError } from "@/server/errors";
import { getLogger } from "@/server/observability/logger";
import type { TNumber } from "@/server/routers/numbers/number.schema";
import { getNumberProvisioning } from "./get-number-provider";
import { removeFromPools, toNumberView } from "./number-view";
import { providerFailure } from "./provider-failure";

export type ReleaseNumberParams = { organizationId: string; numberId: string; actor: string; now: Date };

/**
 * The organization lets a number go. The carrier first: a bought number is given back (the account stops paying), a
 * verified caller ID is deleted; a platform-account or migrated number stays in the platform account, owned by nobody
 * (its calls and texts are refused). If the carrier refuses, the number stays the organization's (502/503). Then, in
 * one transaction: `released`, out of every pool of the organization, its callback settings gone.
 */
export async function releaseNumber(db: DbOrTx, params: ReleaseNumberParams): Promise<TNumber> {
  const row = await findOrganizationNumber(db, params);
  if (!row || row.status === "released") throw new AppError("NUMBER_NOT_FOUND", `Number ${params.numberId} was not found.`);
  if (row.providerSid && (row.source === "purchased" || (row.source === "verified-caller-id" && row.status === "active"))) {
    const { provider } = await getNumberProvisioning(row.carrier);
    try {
      if (row.source === "purchased") await provider.releasePurchased(row.providerSid);
      else await provider.removeCallerId(row.providerSid);
    } catch (error) {
      throw providerFailure(error, "release the number");
    }
  }
  const released = await db.transaction(async (tx) => {
    const [updated] = await tx
      .update(numbers)
      .set({ status: "released", statusReason: `Released by ${params.actor}`, releasedAt: params.now, updatedAt: params.now })
      .where(and(eq(numbers.id, row.id), eq(numbers.organizationId, params.organizationId)))
      .returning();
    await removeFromPools(tx, { organizationId: params.organizationId, phoneNumber: row.phoneNumber, now: params.now });
    await tx.delete(phoneNumberSettings).where(and(eq(phoneNumberSettings.organizationId, params.organizationId), eq(phoneNumberSettings.phoneNumber, row.phoneNumber)));
    return updated!;
  });
  getLogger("numbers").info({ numberId: row.id, source: row.source }, "number released");
  return toNumberView(released);
}
