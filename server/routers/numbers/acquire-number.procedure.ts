import { acquireNumber } from "@/server/services/numbers/acquire-number";
import { suppressionActor } from "@/server/services/suppressions/suppression-actor";
import { requireRole } from "@/server/trpc/init";
import { acquireNumberMeta, ZAcquireNumberRequestSchema, ZNumberResponseSchema } from "./numbers.schema";

/** Admins: a number costs money every month. */
export const acquireNumberProcedure = requireRole("admin")
  .meta({ ...acquireNumberMeta, successStatus: 201 })
  .input(ZAcquireNumberRequestSchema)
  .output(ZNumberResponseSchema)
  .mutation(async ({ ctx, input }) => ({
    number: await acquireNumber(ctx.db, {
      organizationId: ctx.auth.organizationId,
      phoneNumber: input.phoneNumber,
      source: input.source ?? "purchased",
      carrier: input.carrier,
      actor: suppressionActor(ctx.auth.actor),
      now: ctx.now(),
    }),
  }));
