import type { SimTenant } from "./fixtures";

export type SimGuest = { email: string; name?: string; timeZone?: string; phoneNumber?: string; language?: string };
export type SimAttendee = SimGuest & { id: number; absent: boolean };
export type SimMeeting = {
  id: string;
  workspaceId: string;
  meetingTypeId: string;
  status: "Active" | "Canceled";
  startTime: string;
  endTime: string;
  hostUserId: string;
  assigneeUserId: string;
  bookerUserId?: string;
  source: { type: "SchedulingLink" | "Handoff" | "Concierge"; routeId: string; linkId?: string; routerId?: string; distributionId?: string };
  location: { type: "Video"; joinUrl: string } | { type: "InPerson"; address: string };
  attendees: SimAttendee[];
  createdAt: string;
  canceledAt?: string;
  cancellationReason?: string;
};
/** A route or handoff session: the slots it offered and what booking one of them creates. */
export type RouteSession = {
  id: string;
  kind: "link" | "handoff" | "concierge";
  createdAt: number;
  expiresAt: number;
  singleUse: boolean;
  used: boolean;
  hostUserId: string;
  workspaceId: string;
  meetingTypeId: string;
  startTimes: string[];
  guest: SimGuest;
  linkId?: string;
  routerId?: string;
  pathId?: string;
  distributionId?: string;
  bookerUserId?: string;
};

/** What the simulator persists between restarts in embedded mode (meetings, keys, rotation, clock offset). */
export type SimSnapshot = {
  version: 1;
  tenant: SimTenant;
  meetings: SimMeeting[];
  rotation: Record<string, number>;
  clockOffsetMs: number;
  nextAttendeeId: number;
};
