import { z } from "zod";
import { canonicalTimezone } from "@/server/services/phone/timezones";
import { MAX_E164_LENGTH, MAX_EMAIL_LENGTH, MAX_LANGUAGE_LENGTH, MAX_NAME_LENGTH, MAX_TIMEZONE_LENGTH } from "./limits";
import { boundedText, idText } from "./text";

export const ZMeetingEntityIdSchema = idText().describe("The conversation the meeting was booked in: for voice calls the call ID, format `call.<id>`.");

export const ZMeetingAttendeeSchema = z
  .object({
    email: z.string().describe("Always present."),
    name: z.string().optional().describe("Present when the provider has a value."),
    timeZone: z.string().optional().describe("IANA time zone; present when the provider has a value."),
    phoneNumber: z.string().optional().describe("E.164; present when the provider has a value."),
  })
  .describe("Meeting attendee, as the calendar provider has it.");

export const ZNewMeetingAttendeeSchema = z
  .object({
    email: boundedText(MAX_EMAIL_LENGTH)
      .trim()
      .pipe(z.email({ message: "must be a valid email address" }))
      .describe("Required."),
    name: boundedText(MAX_NAME_LENGTH).optional(),
    timeZone: boundedText(MAX_TIMEZONE_LENGTH)
      .refine((value) => canonicalTimezone(value) !== null, { message: "must be an IANA time zone name, e.g. America/New_York" })
      .optional()
      .describe("IANA time zone name."),
    phoneNumber: boundedText(MAX_E164_LENGTH)
      .regex(/^\+[1-9]\d{6,14}$/, { message: "must be an E.164 phone number, e.g. +14155550123" })
      .optional()
      .describe("E.164."),
    language: z.string().min(2).max(MAX_LANGUAGE_LENGTH).optional().describe("Preferred language for the invite, e.g. `en`, `pt-BR`."),
  })
  .describe("Attendee to add.");

export const ZMeetingAttendeesResponseSchema = z.object({
  entityId: z.string(),
  bookingUid: z.string().describe("The provider's ID of the booking."),
  attendees: z.array(ZMeetingAttendeeSchema).describe("Read live from the calendar provider."),
});

export const ZMeetingCancellationSchema = z.object({
  entityId: z.string(),
  bookingUid: z.string(),
  status: z.literal("cancelled"),
});

/** The console's meeting panel (dashboard only): the provider's live meeting next to the stored status. */
export const ZMeetingStateSchema = z.object({
  entityId: z.string(),
  bookingUid: z.string(),
  storedStatus: z
    .enum(["booked", "cancelled"])
    .nullable()
    .describe("What the conversation's metadata says (crmSchedulingDetails.status), reconciled asynchronously after changes."),
  provider: z
    .object({
      status: z.enum(["active", "cancelled", "completed", "no-show"]),
      startTime: z.string(),
      endTime: z.string().nullable(),
      hostEmail: z.string().nullable(),
      meetingLink: z.string().nullable(),
      cancelledAt: z.string().nullable(),
    })
    .describe("The provider's meeting, read live (the source of truth)."),
  reconciled: z.boolean().describe("True when the stored status agrees with the provider (cancelled as cancelled, any other as booked)."),
  canAddAttendees: z.boolean().describe("Attendees can be added only before the start, and never to a cancelled meeting (as in the API)."),
});

export type TMeetingAttendee = z.infer<typeof ZMeetingAttendeeSchema>;
export type TNewMeetingAttendee = z.infer<typeof ZNewMeetingAttendeeSchema>;
export type TMeetingAttendees = z.infer<typeof ZMeetingAttendeesResponseSchema>;
export type TMeetingCancellation = z.infer<typeof ZMeetingCancellationSchema>;
export type TMeetingState = z.infer<typeof ZMeetingStateSchema>;
