import { router } from "@/server/trpc/init";
import { getOverviewProcedure } from "./get-overview.procedure";

/** The organization's overview (dashboard only: no OpenAPI routes, API keys refused). */
export const overviewRouter = router({
  get: getOverviewProcedure,
});
