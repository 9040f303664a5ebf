import { getDailyCreditSpend } from "@/server/services/credits/get-daily-credit-spend";
import { requireRole } from "@/server/trpc/init";
import { ZGetDailyCreditSpendRequestSchema, ZGetDailyCreditSpendResponseSchema } from "./get-daily-credit-spend.schema";

/** Console only (no REST route): the daily series behind the credits chart. */
export const getDailyCreditSpendProcedure = requireRole("member", { sessionOnly: true })
  .input(ZGetDailyCreditSpendRequestSchema)
  .output(ZGetDailyCreditSpendResponseSchema)
  .query(({ ctx, input }) => getDailyCreditSpend(ctx.db, { organizationId: ctx.auth.organizationId, ...input, now: ctx.now() }));
