import { API_SCHEDULED_BY, DASHBOARD_SCHEDULED_BY } from "@/server/services/enrollment/schedulable-agent";
import { enrollOne } from "@/server/services/enrollment/enroll-one";
import { requireRole } from "@/server/trpc/init";
import { enrollOneMeta, ZEnrollOneRequestSchema, ZEnrollOneResponseSchema } from "./enroll-one.schema";

export const enrollOneProcedure = requireRole("admin")
  .meta(enrollOneMeta)
  .input(ZEnrollOneRequestSchema)
  .output(ZEnrollOneResponseSchema)
  .mutation(({ ctx, input }) => {
    const { agentId, ...body } = input;
    return enrollOne(ctx.db, {
      organizationId: ctx.auth.organizationId,
      agentId,
      body,
      scheduledBy: ctx.auth.actor.type === "apiKey" ? API_SCHEDULED_BY : DASHBOARD_SCHEDULED_BY,
      now: ctx.now(),
    });
  });
