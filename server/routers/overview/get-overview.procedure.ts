import { getConfig } from "@/server/config/env";
import { getOverview } from "@/server/services/overview/get-overview";
import { requireRole } from "@/server/trpc/init";
import { ZGetOverviewRequestSchema, ZGetOverviewResponseSchema } from "./get-overview.schema";

/** Console: the organization's landing page figures (every member reads them). */
export const getOverviewProcedure = requireRole("member", { sessionOnly: true })
  .input(ZGetOverviewRequestSchema)
  .output(ZGetOverviewResponseSchema)
  .query(async ({ ctx, input }) =>
    getOverview(ctx.db, {
      organizationId: ctx.auth.organizationId,
      days: input.days,
      now: ctx.now(),
      latencyThresholdMs: getConfig().CALL_QUALITY_LATENCY_THRESHOLD_MS,
    }),
  );
