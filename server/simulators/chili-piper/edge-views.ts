import type { SimLink, SimMeetingType, SimRouterOutcome, SimUser } from "./fixtures";
import type { SimAttendee, SimMeeting } from "./types";

/* How the Edge API renders the simulator's records: the response shapes, apart from the rules that change them. */

/** The answer of a schedule call (step 2 of every booking flow). */
export function scheduleResponseView(meeting: SimMeeting, host: SimUser) {
  return {
    meetingId: meeting.id,
    workspaceId: meeting.workspaceId,
    startTime: meeting.startTime,
    endTime: meeting.endTime,
    host: { userId: host.id, email: host.email, name: host.name },
    location: meeting.location,
  };
}

/** A meeting as `GET /v1/org/meetings/get/{id}` returns it. */
export function meetingRecordView(m: SimMeeting, host: SimUser | undefined) {
  const activities: Array<Record<string, unknown>> = [
    { type: "ScheduledAt", at: m.createdAt, startTime: m.startTime, endTime: m.endTime },
  ];
  if (m.canceledAt) activities.push({ type: "Canceled", at: m.canceledAt, reason: m.cancellationReason ?? null });
  return {
    id: m.id,
    meetingStatus: m.status,
    workspaceId: m.workspaceId,
    meetingTypeId: m.meetingTypeId,
    host: host ? { userId: host.id, email: host.email, name: host.name } : null,
    assignee: { userId: m.assigneeUserId },
    booker: m.bookerUserId ? { userId: m.bookerUserId } : null,
    location: m.location,
    routing: m.source,
    activities,
  };
}

/** An attendee as Cal.com's bookings/{uid}/attendees bodies show it. */
export function attendeeView(a: SimAttendee, meetingId: string) {
  const out: Record<string, unknown> = { id: a.id, bookingId: meetingId, email: a.email, displayEmail: a.email, absent: a.absent };
  if (a.name) out.name = a.name;
  if (a.timeZone) out.timeZone = a.timeZone;
  if (a.phoneNumber) out.phoneNumber = a.phoneNumber;
  if (a.language) out.language = a.language;
  return out;
}

/** A scheduling link as the list-* endpoints return it. */
export function linkDetailView(link: SimLink, type: SimMeetingType) {
  const base = {
    workspaceId: link.workspaceId,
    linkId: link.id,
    name: link.name,
    slug: link.slug,
    meetingTypeIds: [type.id],
    bookingUrl: `https://sim-acme.chilipiper.example/book/${link.slug}`,
  };
  if (link.type === "round-robin") return { ...base, assignments: [{ distributionId: link.distributionId!, required: true }] };
  if (link.type === "ownership") {
    return {
      ...base,
      ownership: { host: { type: "AssigneeFromOwnershipRule" } },
      distribution: { distributionId: link.distributionId, required: true },
      pageConfig: {},
      sharedWith: { type: "Workspace" },
    };
  }
  return base;
}

/** A router's routing as the router endpoints return it: only its catch-all outcome. */
export function routerSummary(outcome: SimRouterOutcome) {
  return {
    known: true,
    representable: true,
    rows: [],
    catchAll: { outcome: { type: "Schedule", distributionId: outcome.distributionId, userId: outcome.userId, meetingTypeId: outcome.meetingTypeId } },
  };
}
