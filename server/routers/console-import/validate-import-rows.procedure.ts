import { validateImportRows } from "@/server/services/console-import/validate-import-rows";
import { requireRole } from "@/server/trpc/init";
import { ZValidateImportRowsRequestSchema, ZValidateImportRowsResponseSchema } from "./validate-import-rows.schema";

/** CSV import preview: the bulk service's per-contact rules as a dry run. Importing is for admins. */
export const validateImportRowsProcedure = requireRole("admin", { sessionOnly: true })
  .input(ZValidateImportRowsRequestSchema)
  .output(ZValidateImportRowsResponseSchema)
  .mutation(({ ctx, input }) => validateImportRows(ctx.db, { organizationId: ctx.auth.organizationId, ...input, now: ctx.now() }));
