import { z } from "zod";
import { ZMeetingEntityIdSchema } from "@/server/schemas/meeting";

export const ZGetMeetingStateRequestSchema = z.object({ entityId: ZMeetingEntityIdSchema });

export const ZGetMeetingStateResponseSchema = z.object({
  entityId: z.string(),
  bookingUid: z.string(),
  storedStatus: z.enum(["booked", "cancelled"]).nullable(),
  provider: z.object({
    status: z.enum(["active", "cancelled", "completed", "no-show"]),
    startTime: z.string(),
    endTime: z.string().nullable(),
    hostEmail: z.string().nullable(),
    meetingLink: z.string().nullable(),
    cancelledAt: z.string().nullable(),
  }),
  reconciled: z.boolean(),
  canAddAttendees: z.boolean(),
});
