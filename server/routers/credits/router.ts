import { router } from "@/server/trpc/init";
import { getCreditUsageProcedure } from "./get-credit-usage.procedure";
import { getDailyCreditSpendProcedure } from "./get-daily-credit-spend.procedure";

export const creditsRouter = router({
  usage: getCreditUsageProcedure,
  dailySpend: getDailyCreditSpendProcedure,
});
