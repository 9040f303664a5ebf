import type { DbOrTx } from "@/db";
import { isProviderStatus } from "@/server/providers/chili-piper/client";
import type { TMeetingAttendees } from "@/server/schemas/meeting";
import { meetingGone, openMeeting, toMeetingAttendee } from "./open-meeting";

export type ListMeetingAttendeesParams = { organizationId: string; entityId: string; baseUrl?: string };

/** A live read from the provider (the source of truth); nothing is cached here. */
export async function listMeetingAttendees(db: DbOrTx, params: ListMeetingAttendeesParams): Promise<TMeetingAttendees> {
  const meeting = await openMeeting(db, params);
  try {
    const attendees = await meeting.client.listAttendees(meeting.bookingUid);
    return { entityId: meeting.entityId, bookingUid: meeting.bookingUid, attendees: attendees.map(toMeetingAttendee) };
  } catch (error) {
    if (isProviderStatus(error, 404)) throw meetingGone(params.entityId);
    throw error;
  }
}
