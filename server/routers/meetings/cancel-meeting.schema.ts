import { z } from "zod";
import { MAX_DESCRIPTION_LENGTH } from "@/server/schemas/limits";
import { ZMeetingCancellationSchema, ZMeetingEntityIdSchema } from "@/server/schemas/meeting";
import { boundedText } from "@/server/schemas/text";
import type { Meta } from "@/server/trpc/init";

export const cancelMeetingMeta: Meta = {
  openapi: {
    method: "POST",
    path: "/conversations/meetings/{entityId}/cancel",
    tags: ["Meetings"],
    summary: "Cancel a meeting",
    description:
      "Cancels the meeting booked during the conversation. The provider confirms the cancellation first; the conversation's stored metadata (crmSchedulingDetails.status) is then reconciled asynchronously. The body is optional; cancelling an already cancelled meeting answers the same way.",
    protect: true,
    errorResponses: {
      401: "Missing or invalid API key",
      404: "Unknown conversation, one of another organization, or no meeting booked in it (MEETING_NOT_FOUND)",
      502: "The calendar provider answered with an error; nothing was changed (PROVIDER_ERROR)",
      503: "The calendar provider is unavailable or not connected; nothing was changed (PROVIDER_UNAVAILABLE)",
    },
  },
};

export const ZCancelMeetingRequestSchema = z.object({
  entityId: ZMeetingEntityIdSchema,
  cancellationReason: boundedText(MAX_DESCRIPTION_LENGTH).optional().describe("Passed to the provider (and the attendees' cancellation email)."),
  // A union, not z.boolean(): trpc-to-openapi switches coercion on for plain booleans, and Boolean("no") is true.
  cancelSubsequentBookings: z
    .union([z.literal(true), z.literal(false)], { error: "must be a boolean" })
    .optional()
    .describe("For recurring bookings: also cancel the later occurrences."),
});

export const ZCancelMeetingResponseSchema = ZMeetingCancellationSchema;
