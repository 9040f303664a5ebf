import { enrollMany } from "@/server/services/enrollment/enroll-many";
import { API_SCHEDULED_BY, DASHBOARD_SCHEDULED_BY } from "@/server/services/enrollment/schedulable-agent";
import { requireRole } from "@/server/trpc/init";
import { enrollManyMeta, ZEnrollManyRequestSchema, ZEnrollManyResponseSchema } from "./enroll-many.schema";

export const enrollManyProcedure = requireRole("admin")
  .meta(enrollManyMeta)
  .input(ZEnrollManyRequestSchema)
  .output(ZEnrollManyResponseSchema)
  .mutation(({ ctx, input }) => {
    const { agentId, ...body } = input;
    return enrollMany(ctx.db, {
      organizationId: ctx.auth.organizationId,
      agentId,
      body: { ...body, allowDuplicates: body.allowDuplicates === true },
      idempotencyKey: ctx.headers.get("idempotency-key"),
      scheduledBy: ctx.auth.actor.type === "apiKey" ? API_SCHEDULED_BY : DASHBOARD_SCHEDULED_BY,
      now: ctx.now(),
    });
  });
