import type { DbOrTx } from "@/db";
import { findLiveNumberRows } from "@/db/queries/numbers";
import { AppError } from "@/server/errors";
import type { z } from "zod";
import type { ZAvailableNumberSchema } from "@/server/routers/numbers/number.schema";
import { getNumberProvisioning, type ProvisioningCarrier } from "./get-number-provider";
import { providerFailure } from "./provider-failure";

export type SearchAvailableNumbersServiceParams = { carrier?: ProvisioningCarrier; country: string; areaCode?: string; region?: string; contains?: string; sms?: boolean; limit: number };

/** Numbers the carrier (default Twilio) offers now (nothing is reserved: buying may still find one gone, 409). */
export async function searchAvailableNumbers(db: DbOrTx, params: SearchAvailableNumbersServiceParams): Promise<{ numbers: Array<z.infer<typeof ZAvailableNumberSchema>> }> {
  if (params.areaCode && params.country !== "US" && params.country !== "CA") {
    throw new AppError("INVALID_REQUEST", "areaCode: only North American numbers (country US or CA) have area codes");
  }
  const { carrier, ...filters } = params;
  const { provider } = await getNumberProvisioning(carrier);
  try {
    const offered = await provider.searchAvailable({ ...filters, voice: true });
    // A number an organization here owns is never offered (the carrier's list and ours can differ: fictional numbers).
    const owned = new Set((await findLiveNumberRows(db, offered.map((number) => number.phoneNumber))).filter((row) => row.status === "active").map((row) => row.phoneNumber));
    const found = offered.filter((number) => !owned.has(number.phoneNumber));
    return { numbers: found.map(({ voice, sms, ...number }) => ({ ...number, capabilities: { voice, sms } })) };
  } catch (error) {
    throw providerFailure(error, "search the carrier's numbers");
  }
}
