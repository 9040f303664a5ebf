import type { DbOrTx } from "@/db";
import { isProviderStatus } from "@/server/providers/chili-piper/client";
import type { TMeetingState } from "@/server/schemas/meeting";
import { meetingGone, openMeeting } from "@/server/services/meetings/open-meeting";

export type GetMeetingStateParams = { organizationId: string; entityId: string; now: Date; baseUrl?: string };

/**
 * The meeting booked during a conversation as the provider has it now, next to the status stored on the call, so the
 * console can say honestly whether the background reconciliation has caught up after a cancel. Raises
 * MEETING_NOT_FOUND (no meeting in this conversation, or it is gone at the provider) and PROVIDER_* errors.
 */
export async function getMeetingState(db: DbOrTx, params: GetMeetingStateParams): Promise<TMeetingState> {
  const meeting = await openMeeting(db, params);
  let record;
  try {
    record = await meeting.client.getMeeting(meeting.bookingUid);
  } catch (error) {
    if (isProviderStatus(error, 404)) throw meetingGone(params.entityId);
    throw error;
  }
  if (!record) throw meetingGone(params.entityId);
  const expectedStored = record.status === "cancelled" ? "cancelled" : "booked";
  const storedStatus = meeting.storedStatus ?? null;
  return {
    entityId: meeting.entityId,
    bookingUid: meeting.bookingUid,
    storedStatus,
    provider: {
      status: record.status,
      startTime: record.startTime,
      endTime: record.endTime,
      hostEmail: record.hostEmail,
      meetingLink: record.meetingLink,
      cancelledAt: record.cancelledAt,
    },
    reconciled: (storedStatus ?? "booked") === expectedStored,
    canAddAttendees: record.status === "active" && params.now.getTime() < Date.parse(record.startTime),
  };
}
