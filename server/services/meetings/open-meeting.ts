import type { DbOrTx } from "@/db";
import { findCall } from "@/db/queries/calls";
import { AppError } from "@/server/errors";
import type { ChiliPiperClient, ProviderAttendee } from "@/server/providers/chili-piper/client";
import type { TMeetingAttendee } from "@/server/schemas/meeting";
import { openProviderClient } from "@/server/services/calendar/provider-connection";


export type OpenedMeeting = {
  entityId: string;
  callId: string;
  bookingUid: string;
  /** The status stored on the conversation (reconciled asynchronously from the provider). */
  storedStatus: "booked" | "cancelled" | undefined;
  client: ChiliPiperClient;
};

/**
 * The meeting booked during a conversation (entityId = the call ID), scoped to the organization, with a provider
 * client opened on the organization's credential. MEETING_NOT_FOUND for an unknown entity, an entity of another
 * organization, or a conversation without a booked meeting; PROVIDER_UNAVAILABLE when the organization's provider
 * is no longer connected.
 */
export async function openMeeting(
  db: DbOrTx,
  params: { organizationId: string; entityId: string; baseUrl?: string },
): Promise<OpenedMeeting> {
  const call = await findCall(db, { organizationId: params.organizationId, callId: params.entityId });
  const bookingUid = call?.crmSchedulingDetails?.bookingUid;
  if (!call || !bookingUid) {
    throw new AppError("MEETING_NOT_FOUND", `No meeting was booked during conversation ${params.entityId}.`);
  }
  const opened = await openProviderClient(db, { organizationId: params.organizationId, baseUrl: params.baseUrl });
  if (!opened) {
    throw new AppError("PROVIDER_UNAVAILABLE", "The organization's calendar provider is not connected: reconnect it to manage this meeting.");
  }
  return { entityId: params.entityId, callId: call.id, bookingUid, storedStatus: call.crmSchedulingDetails.status, client: opened.client };
}

/** The spec's attendee: email always; name, timeZone, phoneNumber only when the provider has them. */
export function toMeetingAttendee(attendee: ProviderAttendee): TMeetingAttendee {
  const out: TMeetingAttendee = { email: attendee.email };
  if (attendee.name) out.name = attendee.name;
  if (attendee.timeZone) out.timeZone = attendee.timeZone;
  if (attendee.phoneNumber) out.phoneNumber = attendee.phoneNumber;
  return out;
}

export function meetingGone(entityId: string): AppError {
  return new AppError("MEETING_NOT_FOUND", `The meeting of conversation ${entityId} no longer exists at the calendar provider.`);
}
