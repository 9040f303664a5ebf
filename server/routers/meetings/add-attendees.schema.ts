import { z } from "zod";
import { MAX_ATTENDEES_PER_REQUEST } from "@/server/schemas/limits";
import { ZMeetingAttendeesResponseSchema, ZMeetingEntityIdSchema, ZNewMeetingAttendeeSchema } from "@/server/schemas/meeting";
import type { Meta } from "@/server/trpc/init";

export const addAttendeesMeta: Meta = {
  openapi: {
    method: "POST",
    path: "/conversations/meetings/{entityId}/attendees",
    tags: ["Meetings"],
    summary: "Add meeting attendees",
    description:
      "Adds 1 to 30 attendees to the meeting booked during the conversation, then returns the full attendee list read back from the provider (not only the added ones). Only while the meeting has not started. Addresses already on the meeting are not added twice.",
    protect: true,
    errorResponses: {
      400: "Invalid attendees: 1–30, email required and valid, timeZone IANA, phoneNumber E.164 (INVALID_REQUEST)",
      401: "Missing or invalid API key",
      404: "Unknown conversation, one of another organization, or no meeting booked in it (MEETING_NOT_FOUND)",
      409: "The meeting has already started (MEETING_ALREADY_STARTED) or is cancelled (MEETING_CANCELLED)",
      502: "The calendar provider answered with an error (PROVIDER_ERROR)",
      503: "The calendar provider is unavailable or not connected (PROVIDER_UNAVAILABLE)",
    },
  },
};

export const ZAddAttendeesRequestSchema = z.object({
  entityId: ZMeetingEntityIdSchema,
  attendees: z
    .array(ZNewMeetingAttendeeSchema)
    .min(1, { message: "at least 1 attendee is required" })
    .max(MAX_ATTENDEES_PER_REQUEST, { message: `at most ${MAX_ATTENDEES_PER_REQUEST} attendees per request` })
    .describe("1 to 30 attendees."),
});
export const ZAddAttendeesResponseSchema = ZMeetingAttendeesResponseSchema;
