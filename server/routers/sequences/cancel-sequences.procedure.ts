import { cancelSequencesByReference } from "@/server/services/sequences/cancel-sequences-by-reference";
import { requireRole } from "@/server/trpc/init";
import { cancelSequencesMeta, ZCancelSequencesRequestSchema, ZCancelSequencesResponseSchema } from "./cancel-sequences.schema";

export const cancelSequencesProcedure = requireRole("admin")
  .meta(cancelSequencesMeta)
  .input(ZCancelSequencesRequestSchema)
  .output(ZCancelSequencesResponseSchema)
  .mutation(async ({ ctx, input }) => {
    const { success } = await cancelSequencesByReference(ctx.db, {
      organizationId: ctx.auth.organizationId,
      referenceKey: input.referenceKey,
      referenceValue: input.referenceValue,
      now: ctx.now(),
    });
    return { success };
  });
