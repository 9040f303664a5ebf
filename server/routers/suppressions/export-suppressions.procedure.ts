import { exportSuppressions } from "@/server/services/suppressions/export-suppressions";
import { orgProcedure } from "@/server/trpc/init";
import { ZExportSuppressionsRequestSchema, ZExportSuppressionsResponseSchema } from "./export-suppressions.schema";

/** Console only (no REST meta): the CSV export of the suppression page, chunk by chunk. */
export const exportSuppressionsProcedure = orgProcedure
  .input(ZExportSuppressionsRequestSchema)
  .output(ZExportSuppressionsResponseSchema)
  .query(({ ctx, input }) => exportSuppressions(ctx.db, { organizationId: ctx.auth.organizationId, afterPhoneNumber: input.afterPhoneNumber }));
