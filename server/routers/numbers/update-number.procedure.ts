import { updateNumber } from "@/server/services/numbers/update-number";
import { requireRole } from "@/server/trpc/init";
import { updateNumberMeta, ZNumberResponseSchema, ZUpdateNumberRequestSchema } from "./numbers.schema";

export const updateNumberProcedure = requireRole("admin")
  .meta(updateNumberMeta)
  .input(ZUpdateNumberRequestSchema)
  .output(ZNumberResponseSchema)
  .mutation(async ({ ctx, input }) => ({
    number: await updateNumber(ctx.db, { organizationId: ctx.auth.organizationId, numberId: input.numberId, dailyCallCap: input.dailyCallCap, now: ctx.now() }),
  }));
