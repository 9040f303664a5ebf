import { validateImportRows } from "@/server/services/enrollment/validate-import-rows";
import { requireRole } from "@/server/trpc/init";
import { ZValidateImportRowsRequestSchema, ZValidateImportRowsResponseSchema } from "./validate-import-rows.schema";

/** CSV import preview: the bulk service's per-contact rules as a dry run. Importing is for admins. */
export const validateImportRowsProcedure = requireRole("admin", { sessionOnly: true })
  // Each row is checked by the enrollment service's per-contact rules: a bad row is reported alone.
  .meta({ perItemInput: ["rows"] })
  .input(ZValidateImportRowsRequestSchema)
  .output(ZValidateImportRowsResponseSchema)
  .mutation(({ ctx, input }) => validateImportRows(ctx.db, { organizationId: ctx.auth.organizationId, ...input, now: ctx.now() }));
