import { addSuppressions } from "@/server/services/suppressions/add-suppressions";
import { suppressionActor } from "@/server/services/suppressions/suppression-actor";
import { requireRole } from "@/server/trpc/init";
import { ZAddSuppressionsRequestSchema, ZAddSuppressionsResponseSchema } from "./add-suppressions.schema";

/** Console only (no REST meta): a CSV file's numbers, recorded with source `import`. */
export const importSuppressionsProcedure = requireRole("support", { sessionOnly: true })
  .meta({ perItemInput: ["phoneNumbers"] })
  .input(ZAddSuppressionsRequestSchema)
  .output(ZAddSuppressionsResponseSchema)
  .mutation(({ ctx, input }) =>
    addSuppressions(ctx.db, {
      organizationId: ctx.auth.organizationId,
      phoneNumbers: input.phoneNumbers,
      reason: input.reason?.trim() || null,
      source: "import",
      createdBy: suppressionActor(ctx.auth.actor),
      now: ctx.now(),
    }),
  );
