import { findNumberDays } from "@/server/services/numbers/number-days";
import { orgProcedure } from "@/server/trpc/init";
import { getNumberDaysMeta, ZGetNumberDaysRequestSchema, ZGetNumberDaysResponseSchema } from "./numbers.schema";

export const getNumberDaysProcedure = orgProcedure
  .meta(getNumberDaysMeta)
  .input(ZGetNumberDaysRequestSchema)
  .output(ZGetNumberDaysResponseSchema)
  .query(({ ctx, input }) => findNumberDays(ctx.db, { organizationId: ctx.auth.organizationId, numberId: input.numberId, days: input.days ?? 30, now: ctx.now() }));
