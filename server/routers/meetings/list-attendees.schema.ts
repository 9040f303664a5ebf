import { z } from "zod";
import { ZMeetingAttendeesResponseSchema, ZMeetingEntityIdSchema } from "@/server/schemas/meeting";
import type { Meta } from "@/server/trpc/init";

export const listAttendeesMeta: Meta = {
  openapi: {
    method: "GET",
    path: "/conversations/meetings/{entityId}/attendees",
    tags: ["Meetings"],
    summary: "List meeting attendees",
    description:
      "The attendees of the meeting booked during the conversation, read live from the calendar provider (the source of truth). Email always; name, timeZone and phoneNumber when the provider has them.",
    protect: true,
    errorResponses: {
      401: "Missing or invalid API key",
      404: "Unknown conversation, one of another organization, or no meeting booked in it (MEETING_NOT_FOUND)",
      502: "The calendar provider answered with an error (PROVIDER_ERROR)",
      503: "The calendar provider is unavailable or not connected (PROVIDER_UNAVAILABLE)",
    },
  },
};

export const ZListAttendeesRequestSchema = z.object({ entityId: ZMeetingEntityIdSchema });
export const ZListAttendeesResponseSchema = ZMeetingAttendeesResponseSchema;
