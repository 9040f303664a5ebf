import type { DbOrTx } from "@/db";
import { isProviderStatus, type ProviderMeetingStatus } from "@/server/providers/chili-piper/client";
import { meetingGone, openMeeting } from "@/server/services/meetings/open-meeting";

export type GetMeetingStateParams = { organizationId: string; entityId: string; now: Date; baseUrl?: string };

export type MeetingState = {
  entityId: string;
  bookingUid: string;
  /** What the conversation's metadata says (`crmSchedulingDetails.status`), reconciled asynchronously after changes. */
  storedStatus: "booked" | "cancelled" | null;
  /** The provider's meeting, read live (the source of truth). */
  provider: {
    status: ProviderMeetingStatus;
    startTime: string;
    endTime: string | null;
    hostEmail: string | null;
    meetingLink: string | null;
    cancelledAt: string | null;
  };
  /** True when the stored status agrees with the provider (a cancelled meeting is stored as cancelled, any other as booked). */
  reconciled: boolean;
  /** Attendees can be added only before the start, and never to a cancelled meeting (same checks as the API). */
  canAddAttendees: boolean;
};

/**
 * The meeting booked during a conversation as the provider has it now, next to the status stored on the call, so the
 * console can say honestly whether the background reconciliation has caught up after a cancel. Raises
 * MEETING_NOT_FOUND (no meeting in this conversation, or it is gone at the provider) and PROVIDER_* errors.
 */
export async function getMeetingState(db: DbOrTx, params: GetMeetingStateParams): Promise<MeetingState> {
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
