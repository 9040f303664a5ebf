import { router } from "@/server/trpc/init";
import { addSuppressionsProcedure } from "./add-suppressions.procedure";
import { exportSuppressionsProcedure } from "./export-suppressions.procedure";
import { importSuppressionsProcedure } from "./import-suppressions.procedure";
import { listSuppressionsProcedure } from "./list-suppressions.procedure";
import { removeSuppressionProcedure } from "./remove-suppression.procedure";

/** The organization's suppression list: REST (list, add, remove) and the console (those plus CSV import/export). */
export const suppressionsRouter = router({
  list: listSuppressionsProcedure,
  add: addSuppressionsProcedure,
  remove: removeSuppressionProcedure,
  import: importSuppressionsProcedure,
  export: exportSuppressionsProcedure,
});
