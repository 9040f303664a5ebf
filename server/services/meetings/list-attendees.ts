import type { DbOrTx } from "@/db";
import { isProviderStatus } from "@/server/providers/chili-piper/client";
import { meetingGone, openMeeting, toMeetingAttendee, type MeetingAttendee } from "./open-meeting";

export type ListMeetingAttendeesParams = { organizationId: string; entityId: string; baseUrl?: string };
export type MeetingAttendeesList = { entityId: string; bookingUid: string; attendees: MeetingAttendee[] };

/** A live read from the provider (the source of truth); nothing is cached here. */
export async function listMeetingAttendees(db: DbOrTx, params: ListMeetingAttendeesParams): Promise<MeetingAttendeesList> {
  const meeting = await openMeeting(db, params);
  try {
    const attendees = await meeting.client.listAttendees(meeting.bookingUid);
    return { entityId: meeting.entityId, bookingUid: meeting.bookingUid, attendees: attendees.map(toMeetingAttendee) };
  } catch (error) {
    if (isProviderStatus(error, 404)) throw meetingGone(params.entityId);
    throw error;
  }
}
