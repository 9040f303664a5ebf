import { cancelMeeting } from "@/server/services/meetings/cancel-meeting";
import { requireRole } from "@/server/trpc/init";
import { cancelMeetingMeta, ZCancelMeetingRequestSchema, ZCancelMeetingResponseSchema } from "./cancel-meeting.schema";

export const cancelMeetingProcedure = requireRole("support")
  .meta(cancelMeetingMeta)
  .input(ZCancelMeetingRequestSchema)
  .output(ZCancelMeetingResponseSchema)
  .mutation(({ ctx, input }) =>
    cancelMeeting(ctx.db, {
      organizationId: ctx.auth.organizationId,
      entityId: input.entityId,
      cancellationReason: input.cancellationReason,
      cancelSubsequentBookings: input.cancelSubsequentBookings,
    }),
  );
