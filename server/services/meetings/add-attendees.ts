import type { DbOrTx } from "@/db";
import { AppError } from "@/server/errors";
import { isProviderStatus, ProviderRequestError } from "@/server/providers/chili-piper/client";
import type { TMeetingAttendees, TNewMeetingAttendee } from "@/server/schemas/meeting";
import { canonicalTimezone } from "@/server/services/phone/timezones";
import { meetingGone, openMeeting, toMeetingAttendee } from "./open-meeting";


export type AddMeetingAttendeesParams = {
  organizationId: string;
  entityId: string;
  attendees: TNewMeetingAttendee[];
  now?: Date;
  baseUrl?: string;
};

export const MAX_ATTENDEES_PER_REQUEST = 30;

function cancelled(entityId: string) {
  return new AppError("MEETING_CANCELLED", `The meeting of conversation ${entityId} is cancelled: attendees cannot be added.`);
}

function started(entityId: string) {
  return new AppError("MEETING_ALREADY_STARTED", `The meeting of conversation ${entityId} has already started: attendees can only be added before it starts.`);
}

/**
 * Adds attendees to the meeting, then returns the full attendee list read back from the provider (not only the
 * request's). Raises MEETING_NOT_FOUND, MEETING_CANCELLED (409) or MEETING_ALREADY_STARTED (409) — checked against
 * the provider's meeting before any change, and again from the provider's own refusal. Addresses already on the
 * meeting (case-insensitive) are not added twice, so a retry after a partial failure (provider down half-way) adds
 * only what is missing; the provider, the source of truth, keeps what was added before the failure.
 */
export async function addMeetingAttendees(db: DbOrTx, params: AddMeetingAttendeesParams): Promise<TMeetingAttendees> {
  if (params.attendees.length < 1 || params.attendees.length > MAX_ATTENDEES_PER_REQUEST) {
    throw new AppError("INVALID_REQUEST", `attendees: between 1 and ${MAX_ATTENDEES_PER_REQUEST} attendees per request`);
  }
  const meeting = await openMeeting(db, params);
  const { client, bookingUid } = meeting;
  const now = params.now ?? new Date();
  try {
    const record = await client.getMeeting(bookingUid);
    if (!record) throw meetingGone(params.entityId);
    if (record.status === "cancelled") throw cancelled(params.entityId);
    if (record.status !== "active" || now.getTime() >= Date.parse(record.startTime)) throw started(params.entityId);

    const present = new Set((await client.listAttendees(bookingUid)).map((a) => a.email.toLowerCase()));
    for (const attendee of params.attendees) {
      const email = attendee.email.trim();
      if (present.has(email.toLowerCase())) continue;
      present.add(email.toLowerCase());
      const timeZone = attendee.timeZone ? (canonicalTimezone(attendee.timeZone) ?? attendee.timeZone) : undefined;
      await client.addAttendee(bookingUid, {
        email,
        ...(attendee.name?.trim() ? { name: attendee.name.trim() } : {}),
        ...(timeZone ? { timeZone } : {}),
        ...(attendee.phoneNumber ? { phoneNumber: attendee.phoneNumber } : {}),
        ...(attendee.language ? { language: attendee.language } : {}),
      });
    }
    const attendees = await client.listAttendees(bookingUid);
    return { entityId: params.entityId, bookingUid, attendees: attendees.map(toMeetingAttendee) };
  } catch (error) {
    if (error instanceof ProviderRequestError) {
      if (error.providerErrorCode === "MeetingCanceled") throw cancelled(params.entityId);
      if (error.providerErrorCode === "MeetingAlreadyStarted") throw started(params.entityId);
      if (isProviderStatus(error, 404)) throw meetingGone(params.entityId);
    }
    throw error;
  }
}
