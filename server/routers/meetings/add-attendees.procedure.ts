import { addMeetingAttendees } from "@/server/services/meetings/add-attendees";
import { requireRole } from "@/server/trpc/init";
import { addAttendeesMeta, ZAddAttendeesRequestSchema, ZAddAttendeesResponseSchema } from "./add-attendees.schema";

export const addAttendeesProcedure = requireRole("support")
  .meta(addAttendeesMeta)
  .input(ZAddAttendeesRequestSchema)
  .output(ZAddAttendeesResponseSchema)
  .mutation(({ ctx, input }) =>
    addMeetingAttendees(ctx.db, { organizationId: ctx.auth.organizationId, entityId: input.entityId, attendees: input.attendees, now: ctx.now() }),
  );
