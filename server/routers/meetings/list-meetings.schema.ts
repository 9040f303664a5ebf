import { z } from "zod";
import { boundedInstant } from "@/server/schemas/instant";
import { MAX_EMAIL_LENGTH, MAX_ID_LENGTH } from "@/server/schemas/limits";

export const MAX_MEETINGS_PER_PAGE = 100;
export const MAX_MEETINGS_OFFSET = 100_000;

export const ZListMeetingsRequestSchema = z
  .object({
    agentId: z.string().min(1).max(MAX_ID_LENGTH).optional().describe("Only meetings booked by this agent's calls."),
    status: z.enum(["booked", "cancelled"]).optional().describe("Our stored status."),
    when: z.enum(["upcoming", "past"]).optional(),
    from: boundedInstant().optional().describe("Meetings starting at or after this moment."),
    to: boundedInstant().optional().describe("Meetings starting before this moment."),
    host: z.string().trim().min(1).max(MAX_EMAIL_LENGTH).optional().describe("Part of the host's email address."),
    limit: z.number().int().min(1).max(MAX_MEETINGS_PER_PAGE).default(25),
    offset: z.number().int().min(0).max(MAX_MEETINGS_OFFSET).default(0),
  })
  .refine((input) => !input.from || !input.to || Date.parse(input.from) < Date.parse(input.to), {
    message: "`from` must be before `to`.",
    path: ["to"],
  });

export const ZMeetingRowSchema = z.object({
  callId: z.string().describe("The call during which the meeting was booked (the meeting's entityId)."),
  sequenceId: z.string(),
  contact: z.object({ name: z.string(), phoneNumber: z.string(), timezone: z.string() }),
  agent: z.object({ agentId: z.string(), name: z.string() }),
  startTime: z.string(),
  endTime: z.string(),
  hostEmail: z.string(),
  meetingLink: z.string(),
  status: z.enum(["booked", "cancelled"]),
  mode: z.string().nullable(),
  bookingUid: z.string(),
  cancelledAt: z.string().nullable(),
  started: z.boolean(),
});

export const ZListMeetingsResponseSchema = z.object({
  meetings: z.array(ZMeetingRowSchema),
  total: z.number().int(),
});
