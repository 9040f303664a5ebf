import { AppError } from "@/server/errors";
import type { z } from "zod";
import type { ZAvailableNumberSchema } from "@/server/routers/numbers/number.schema";
import { getNumberProvisioning } from "./get-number-provider";
import { providerFailure } from "./provider-failure";

export type SearchAvailableNumbersServiceParams = { country: string; areaCode?: string; region?: string; contains?: string; sms?: boolean; limit: number };

/** Numbers the carrier offers now (nothing is reserved: buying may still find one gone, 409). */
export async function searchAvailableNumbers(params: SearchAvailableNumbersServiceParams): Promise<{ numbers: Array<z.infer<typeof ZAvailableNumberSchema>> }> {
  if (params.areaCode && params.country !== "US" && params.country !== "CA") {
    throw new AppError("INVALID_REQUEST", "areaCode: only North American numbers (country US or CA) have area codes");
  }
  const { provider } = await getNumberProvisioning();
  try {
    const found = await provider.searchAvailable({ ...params, voice: true });
    return { numbers: found.map(({ voice, sms, ...number }) => ({ ...number, capabilities: { voice, sms } })) };
  } catch (error) {
    throw providerFailure(error, "search the carrier's numbers");
  }
}
