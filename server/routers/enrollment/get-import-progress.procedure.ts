import { getImportProgress } from "@/server/services/enrollment/get-import-progress";
import { requireRole } from "@/server/trpc/init";
import { ZGetImportProgressRequestSchema, ZGetImportProgressResponseSchema } from "./get-import-progress.schema";

export const getImportProgressProcedure = requireRole("admin", { sessionOnly: true })
  .input(ZGetImportProgressRequestSchema)
  .output(ZGetImportProgressResponseSchema)
  .query(({ ctx, input }) => getImportProgress(ctx.db, { organizationId: ctx.auth.organizationId, batchIds: input.batchIds }));
