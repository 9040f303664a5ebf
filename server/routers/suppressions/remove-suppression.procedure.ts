import { removeSuppression } from "@/server/services/suppressions/remove-suppression";
import { requireRole } from "@/server/trpc/init";
import { removeSuppressionMeta, ZRemoveSuppressionRequestSchema, ZRemoveSuppressionResponseSchema } from "./remove-suppression.schema";

/** REST path segments reach procedures re-encoded (server/http/request-head.ts canonicalPath): `%2B1415…` is `+1415…`. */
function pathSegmentValue(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** Admins only in the console: taking a number off the list lets it be called again. */
export const removeSuppressionProcedure = requireRole("admin")
  .meta(removeSuppressionMeta)
  .input(ZRemoveSuppressionRequestSchema)
  .output(ZRemoveSuppressionResponseSchema)
  .mutation(({ ctx, input }) =>
    removeSuppression(ctx.db, {
      organizationId: ctx.auth.organizationId,
      phoneNumber: ctx.source === "rest" ? pathSegmentValue(input.phoneNumber) : input.phoneNumber,
    }),
  );
