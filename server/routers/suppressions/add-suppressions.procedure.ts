import { addSuppressions } from "@/server/services/suppressions/add-suppressions";
import { suppressionActor } from "@/server/services/suppressions/suppression-actor";
import { requireRole } from "@/server/trpc/init";
import { addSuppressionsMeta, ZAddSuppressionsRequestSchema, ZAddSuppressionsResponseSchema } from "./add-suppressions.schema";

/** Support staff may add numbers (a consumer asking by phone not to be called); API keys act for the organization. */
export const addSuppressionsProcedure = requireRole("support")
  .meta(addSuppressionsMeta)
  .input(ZAddSuppressionsRequestSchema)
  .output(ZAddSuppressionsResponseSchema)
  .mutation(({ ctx, input }) =>
    addSuppressions(ctx.db, {
      organizationId: ctx.auth.organizationId,
      phoneNumbers: input.phoneNumbers,
      reason: input.reason?.trim() || null,
      source: ctx.auth.actor.type === "apiKey" ? "api" : "console",
      createdBy: suppressionActor(ctx.auth.actor),
      now: ctx.now(),
    }),
  );
