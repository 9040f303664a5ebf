import { listMeetingAttendees } from "@/server/services/meetings/list-attendees";
import { orgProcedure } from "@/server/trpc/init";
import { listAttendeesMeta, ZListAttendeesRequestSchema, ZListAttendeesResponseSchema } from "./list-attendees.schema";

export const listAttendeesProcedure = orgProcedure
  .meta(listAttendeesMeta)
  .input(ZListAttendeesRequestSchema)
  .output(ZListAttendeesResponseSchema)
  .query(({ ctx, input }) => listMeetingAttendees(ctx.db, { organizationId: ctx.auth.organizationId, entityId: input.entityId }));
