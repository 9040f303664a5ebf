import { router } from "@/server/trpc/init";
import { getRunProcedure } from "./get-run.procedure";
import { listRunsProcedure } from "./list-runs.procedure";

export const jobsRouter = router({
  listRuns: listRunsProcedure,
  getRun: getRunProcedure,
});
