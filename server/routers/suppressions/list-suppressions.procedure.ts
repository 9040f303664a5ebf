import { listSuppressions } from "@/server/services/suppressions/list-suppressions";
import { orgProcedure } from "@/server/trpc/init";
import { listSuppressionsMeta, ZListSuppressionsRequestSchema, ZListSuppressionsResponseSchema } from "./list-suppressions.schema";

export const listSuppressionsProcedure = orgProcedure
  .meta(listSuppressionsMeta)
  .input(ZListSuppressionsRequestSchema)
  .output(ZListSuppressionsResponseSchema)
  .query(({ ctx, input }) =>
    listSuppressions(ctx.db, { organizationId: ctx.auth.organizationId, page: input.page ?? 1, phoneNumber: input.phoneNumber }),
  );
