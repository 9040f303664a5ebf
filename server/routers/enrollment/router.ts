import { router } from "@/server/trpc/init";
import { enrollManyProcedure } from "./enroll-many.procedure";
import { enrollOneProcedure } from "./enroll-one.procedure";
import { getImportProgressProcedure } from "./get-import-progress.procedure";
import { previewEnrollmentProcedure } from "./preview-enrollment.procedure";
import { submitImportBatchProcedure } from "./submit-import-batch.procedure";
import { validateImportRowsProcedure } from "./validate-import-rows.procedure";

/**
 * enrollOne and enrollMany are also `/api/v1` operations. The console's CSV import (admins, dashboard only) runs on the
 * same rules: validateImportRows (preview), submitImportBatch (one batch through enrollMany), importProgress.
 */
export const enrollmentRouter = router({
  enrollOne: enrollOneProcedure,
  enrollMany: enrollManyProcedure,
  previewMany: previewEnrollmentProcedure,
  validateImportRows: validateImportRowsProcedure,
  submitImportBatch: submitImportBatchProcedure,
  importProgress: getImportProgressProcedure,
});
