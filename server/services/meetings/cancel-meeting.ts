import type { DbOrTx } from "@/db";
import { inngest } from "@/inngest/client";
import { meetingCancelled } from "@/inngest/events";
import { isProviderStatus } from "@/server/providers/chili-piper/client";
import type { TMeetingCancellation } from "@/server/schemas/meeting";
import { meetingGone, openMeeting } from "./open-meeting";
import { getLogger } from "@/server/observability/logger";

export type CancelMeetingParams = {
  organizationId: string;
  entityId: string;
  cancellationReason?: string;
  cancelSubsequentBookings?: boolean;
  baseUrl?: string;
  /** How the reconciliation is requested; default: the `meeting/cancelled` Inngest event. */
  notifyCancelled?: (callId: string) => Promise<void>;
};


async function sendMeetingCancelled(callId: string): Promise<void> {
  await inngest.send(meetingCancelled.create({ callId }));
}

/**
 * Cancels the meeting at the provider, which must confirm before we answer. The conversation's stored metadata is
 * not touched here: the `meeting/cancelled` event has the reconcile-meeting function update it asynchronously.
 * Cancelling a meeting that is already cancelled answers the same 200 without asking the provider to cancel again.
 * Raises MEETING_NOT_FOUND; PROVIDER_ERROR/UNAVAILABLE when the provider does not confirm (nothing is changed then).
 */
export async function cancelMeeting(db: DbOrTx, params: CancelMeetingParams): Promise<TMeetingCancellation> {
  const meeting = await openMeeting(db, params);
  const { client, bookingUid } = meeting;
  const record = await client.getMeeting(bookingUid);
  if (!record) throw meetingGone(params.entityId);
  if (record.status !== "cancelled") {
    try {
      await client.cancelMeeting(bookingUid, {
        ...(params.cancellationReason !== undefined ? { cancellationReason: params.cancellationReason } : {}),
        ...(params.cancelSubsequentBookings !== undefined ? { cancelSubsequentBookings: params.cancelSubsequentBookings } : {}),
      });
    } catch (error) {
      if (isProviderStatus(error, 404)) throw meetingGone(params.entityId);
      throw error;
    }
  }
  if (meeting.storedStatus !== "cancelled") {
    // After the provider confirmed. A lost event leaves the stored status stale, never the meeting itself.
    try {
      await (params.notifyCancelled ?? sendMeetingCancelled)(meeting.callId);
    } catch (error) {
      getLogger("meetings").error({ callId: meeting.callId, err: error }, "could not request reconciliation of a cancelled meeting");
    }
  }
  return { entityId: params.entityId, bookingUid, status: "cancelled" };
}
