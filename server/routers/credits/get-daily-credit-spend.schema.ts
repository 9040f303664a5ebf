import { z } from "zod";
import { ZGetCreditUsageRequestSchema } from "./get-credit-usage.schema";

export const ZGetDailyCreditSpendRequestSchema = ZGetCreditUsageRequestSchema;
export const ZGetDailyCreditSpendResponseSchema = z.object({
  days: z.array(z.object({ date: z.string().describe("YYYY-MM-DD, UTC"), spentCredits: z.number().int() })),
});
