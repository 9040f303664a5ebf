/* What the Chili Piper client returns and takes: the provider's records as the app reads them. */

export type Interval = { startsAt: string; duration: string };
export type Guest = { email: string; name?: string; timeZone?: string; phoneNumber?: string };

export type Workspace = { id: string; name: string };
export type ProviderUser = { id: string; name: string; email: string; workspaces: string[] };
export type Distribution = { id: string; name: string; workspaceId: string; assignees: string[] };
export type RouterOutcome = { type: string; distributionId?: string; userId?: string; meetingTypeId?: string };
export type HandoffRouter = { id: string; workspaceId: string; name: string | null; outcomes: RouterOutcome[] };
export type ConciergeRouter = { id: string; workspaceId: string; name: string | null; slug: string | null };
export type SchedulingLinkType = "round-robin" | "group" | "admin-one-on-one" | "ownership";
export type SchedulingLink = { linkId: string; type: SchedulingLinkType; name: string; slug: string; workspaceId: string };
export type RouteSession = { routeId: string; startTimes: string[]; expiresInMs?: number };
export type HandoffSession = {
  routingId: string;
  routers: Array<{ routerId: string; paths: Array<{ pathId: string; distributionId: string | null; startTimes: string[] }> }>;
};
export type ScheduledMeeting = {
  meetingId: string;
  workspaceId: string | null;
  startTime: string;
  endTime: string;
  hostEmail: string;
  /** Join URL for virtual meetings, the address for in-person ones. */
  meetingLink: string;
};
export type ProviderMeetingStatus = "active" | "cancelled" | "completed" | "no-show";
export type ProviderMeeting = {
  id: string;
  status: ProviderMeetingStatus;
  startTime: string;
  endTime: string | null;
  hostEmail: string | null;
  meetingLink: string | null;
  workspaceId: string | null;
  cancelledAt: string | null;
};
export type ProviderAttendee = { email: string; name?: string; timeZone?: string; phoneNumber?: string; language?: string };
export type NewAttendee = ProviderAttendee;
