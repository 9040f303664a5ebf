import { getCreditUsage } from "@/server/services/credits/get-credit-usage";
import { orgProcedure } from "@/server/trpc/init";
import { getCreditUsageMeta, ZGetCreditUsageRequestSchema, ZGetCreditUsageResponseSchema } from "./get-credit-usage.schema";

export const getCreditUsageProcedure = orgProcedure
  .meta(getCreditUsageMeta)
  .input(ZGetCreditUsageRequestSchema)
  .output(ZGetCreditUsageResponseSchema)
  .query(({ ctx, input }) =>
    getCreditUsage(ctx.db, { organizationId: ctx.auth.organizationId, ...input, now: ctx.now() }),
  );
