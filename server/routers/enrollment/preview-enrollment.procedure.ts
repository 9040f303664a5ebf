import { previewBulkEnrollment } from "@/server/services/enrollment/preview-bulk-enrollment";
import { API_SCHEDULED_BY, DASHBOARD_SCHEDULED_BY } from "@/server/services/enrollment/schedulable-agent";
import { requireRole } from "@/server/trpc/init";
import { previewEnrollmentMeta, ZPreviewEnrollmentRequestSchema, ZPreviewEnrollmentResponseSchema } from "./preview-enrollment.schema";

export const previewEnrollmentProcedure = requireRole("admin")
  .meta(previewEnrollmentMeta)
  .input(ZPreviewEnrollmentRequestSchema)
  .output(ZPreviewEnrollmentResponseSchema)
  .mutation(({ ctx, input }) => {
    const { agentId, ...body } = input;
    return previewBulkEnrollment(ctx.db, {
      organizationId: ctx.auth.organizationId,
      agentId,
      body: { ...body, allowDuplicates: body.allowDuplicates === true },
      scheduledBy: ctx.auth.actor.type === "apiKey" ? API_SCHEDULED_BY : DASHBOARD_SCHEDULED_BY,
      now: ctx.now(),
    });
  });
