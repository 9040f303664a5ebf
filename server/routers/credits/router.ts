import { router } from "@/server/trpc/init";
import { getCreditUsageProcedure } from "./get-credit-usage.procedure";

export const creditsRouter = router({
  usage: getCreditUsageProcedure,
});
