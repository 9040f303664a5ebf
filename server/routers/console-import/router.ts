import { router } from "@/server/trpc/init";
import { getImportProgressProcedure } from "./get-import-progress.procedure";
import { submitImportBatchProcedure } from "./submit-import-batch.procedure";
import { validateImportRowsProcedure } from "./validate-import-rows.procedure";

/** CSV bulk import in the console (admins; dashboard only): preview, submit in batches, progress. */
export const consoleImportRouter = router({
  validateRows: validateImportRowsProcedure,
  submitBatch: submitImportBatchProcedure,
  progress: getImportProgressProcedure,
});
