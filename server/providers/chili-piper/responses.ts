import { z } from "zod";
import { ProviderRequestError } from "./provider-error";
import type { ProviderAttendee, ProviderMeetingStatus, RouteSession, RouterOutcome, ScheduledMeeting } from "./types";

/* The provider's response shapes (only the fields we read; everything else passes through) and how each becomes ours. */

export function locationText(location: { joinUrl?: string; address?: string; url?: string } | null | undefined): string {
  return location?.joinUrl || location?.address || location?.url || "";
}

export function meetingStatus(value: string | undefined): ProviderMeetingStatus {
  switch (value) {
    case "Canceled":
    case "Cancelled":
      return "cancelled";
    case "Completed":
      return "completed";
    case "NoShow":
      return "no-show";
    default:
      return "active";
  }
}


export const ZPage = <T extends z.ZodType>(item: T) => z.looseObject({ results: z.array(item).optional() });
export const ZWorkspace = z.looseObject({ id: z.string(), name: z.string() });
export const ZUser = z.looseObject({ id: z.string(), name: z.string(), email: z.string(), workspaces: z.array(z.string()).optional() });
export const ZDistribution = z.looseObject({
  id: z.string(),
  published: z.looseObject({ name: z.string().optional(), workspaceId: z.string().optional() }).optional(),
  state: z.looseObject({ userStates: z.array(z.looseObject({ type: z.string(), userId: z.string() })).optional() }).optional(),
});
const ZOutcome = z.looseObject({ type: z.string(), distributionId: z.string().nullish(), userId: z.string().nullish(), meetingTypeId: z.string().nullish() });
export const ZRouter = z.looseObject({
  id: z.string(),
  workspaceId: z.string(),
  name: z.string().nullish(),
  slug: z.string().nullish(),
  routing: z
    .looseObject({
      rows: z.array(z.looseObject({ outcome: ZOutcome.nullish() })).optional(),
      catchAll: z.looseObject({ outcome: ZOutcome.nullish() }).nullish(),
    })
    .nullish(),
});
export const ZLinkList = z.looseObject({
  links: z.array(z.looseObject({ linkId: z.string(), name: z.string(), slug: z.string(), workspaceId: z.string() })).optional(),
});
export const ZRouteSession = z.looseObject({
  routeId: z.string().optional(),
  schedulingData: z.looseObject({ routeId: z.string().optional(), startTimes: z.array(z.string()).default([]), timeoutInMS: z.number().optional() }),
});
export const ZHandoffSession = z.looseObject({
  routingId: z.string(),
  routers: z.array(
    z.looseObject({
      routerId: z.string(),
      pathResults: z.array(z.looseObject({ pathId: z.string(), distributionId: z.string().nullish(), startTimes: z.array(z.string()).default([]) })),
    }),
  ),
});
const ZLocation = z.looseObject({ joinUrl: z.string().optional(), address: z.string().optional(), url: z.string().optional() }).nullish();
export const ZScheduled = z.looseObject({
  meetingId: z.string(),
  workspaceId: z.string().nullish(),
  startTime: z.string(),
  endTime: z.string().nullish(),
  host: z.looseObject({ email: z.string().optional() }).nullish(),
  location: ZLocation,
});
export const ZMeetingRecord = z.looseObject({
  data: z.looseObject({
    id: z.string(),
    meetingStatus: z.string().optional(),
    workspaceId: z.string().nullish(),
    startTime: z.string().optional(),
    endTime: z.string().optional(),
    host: z.looseObject({ email: z.string().optional() }).nullish(),
    location: ZLocation,
    activities: z.array(z.looseObject({ type: z.string(), at: z.string().optional(), startTime: z.string().optional(), endTime: z.string().optional() })).optional(),
  }),
});
export const ZCancelResult = z.looseObject({ type: z.enum(["Success", "Failure"]), reason: z.string().optional() });
const ZAttendee = z.looseObject({
  email: z.string(),
  name: z.string().nullish(),
  timeZone: z.string().nullish(),
  phoneNumber: z.string().nullish(),
  language: z.string().nullish(),
});
export const ZAttendeeList = z.looseObject({ data: z.array(ZAttendee) });
export const ZAttendeeAdded = z.looseObject({ data: ZAttendee });

export function routerOutcomes(routing: z.infer<typeof ZRouter>["routing"]): RouterOutcome[] {
  const outcomes = [...(routing?.rows ?? []).map((row) => row.outcome), routing?.catchAll?.outcome];
  return outcomes
    .filter((o): o is z.infer<typeof ZOutcome> => Boolean(o))
    .map((o) => ({ type: o.type, distributionId: o.distributionId ?? undefined, userId: o.userId ?? undefined, meetingTypeId: o.meetingTypeId ?? undefined }));
}

export function routeSession(r: z.infer<typeof ZRouteSession>): RouteSession {
  const routeId = r.routeId ?? r.schedulingData.routeId;
  if (!routeId) throw new ProviderRequestError("PROVIDER_ERROR", "The calendar provider returned slots without a route ID.", { status: 200 });
  return { routeId, startTimes: r.schedulingData.startTimes, expiresInMs: r.schedulingData.timeoutInMS };
}

export function scheduled(r: z.infer<typeof ZScheduled>): ScheduledMeeting {
  return {
    meetingId: r.meetingId,
    workspaceId: r.workspaceId ?? null,
    startTime: r.startTime,
    endTime: r.endTime ?? r.startTime,
    hostEmail: r.host?.email ?? "",
    meetingLink: locationText(r.location),
  };
}

export function attendeeOf(a: z.infer<typeof ZAttendee>): ProviderAttendee {
  const out: ProviderAttendee = { email: a.email };
  if (a.name) out.name = a.name;
  if (a.timeZone) out.timeZone = a.timeZone;
  if (a.phoneNumber) out.phoneNumber = a.phoneNumber;
  if (a.language) out.language = a.language;
  return out;
}
