import { exportConsentRecords } from "@/server/services/consent/export-consent-records";
import { requireRole } from "@/server/trpc/init";
import { ZExportConsentRecordsRequestSchema, ZExportConsentRecordsResponseSchema } from "./export-consent-records.schema";

/** Console only (no REST meta): the consent records of contacts enrolled in a date range, chunk by chunk, for a CSV. */
export const exportConsentRecordsProcedure = requireRole("member", { sessionOnly: true })
  .input(ZExportConsentRecordsRequestSchema)
  .output(ZExportConsentRecordsResponseSchema)
  .query(({ ctx, input }) =>
    exportConsentRecords(ctx.db, {
      organizationId: ctx.auth.organizationId,
      from: new Date(input.from),
      to: new Date(input.to),
      after: input.after ? { enrolledAt: new Date(input.after.enrolledAt), sequenceId: input.after.sequenceId } : null,
    }),
  );
