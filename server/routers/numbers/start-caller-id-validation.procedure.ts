import { startCallerIdValidation } from "@/server/services/numbers/caller-id-validation";
import { suppressionActor } from "@/server/services/suppressions/suppression-actor";
import { requireRole } from "@/server/trpc/init";
import { startCallerIdValidationMeta, ZStartCallerIdValidationRequestSchema, ZStartCallerIdValidationResponseSchema } from "./numbers.schema";

export const startCallerIdValidationProcedure = requireRole("admin")
  .meta({ ...startCallerIdValidationMeta, successStatus: 201 })
  .input(ZStartCallerIdValidationRequestSchema)
  .output(ZStartCallerIdValidationResponseSchema)
  .mutation(({ ctx, input }) =>
    startCallerIdValidation(ctx.db, {
      organizationId: ctx.auth.organizationId,
      phoneNumber: input.phoneNumber,
      friendlyName: input.friendlyName,
      actor: suppressionActor(ctx.auth.actor),
      now: ctx.now(),
    }),
  );
