import { randomBytes, randomUUID } from "node:crypto";
import { CHILI_PIPER_PERMISSIONS } from "@/server/providers/chili-piper/permissions";
import {
  defaultTenant,
  type SimConciergeRouter,
  type SimLink,
  type SimMeetingType,
  type SimRouterOutcome,
  type SimTenant,
  type SimUser,
} from "./fixtures";
import { openSlots } from "./availability";
import { attendeeView, linkDetailView, meetingRecordView, scheduleResponseView } from "./edge-views";
import { SimError } from "./sim-error";
import type { RouteSession, SimAttendee, SimGuest, SimMeeting, SimSnapshot } from "./types";

export type SimulatorStateOptions = {
  tenant?: SimTenant;
  /** Lifetime of a concierge route ID (single-use); default 2 minutes. */
  conciergeRouteTtlMs?: number;
  /** Lifetime of a scheduling-link / handoff session; default 15 minutes. */
  sessionTtlMs?: number;
};

export class SimulatorState {
  tenant: SimTenant;
  meetings = new Map<string, SimMeeting>();
  private sessions = new Map<string, RouteSession>();
  private rotation: Record<string, number> = {};
  clockOffsetMs = 0;
  private nextAttendeeId = 1;
  readonly conciergeRouteTtlMs: number;
  readonly sessionTtlMs: number;
  /** Called after every change worth persisting. */
  onChange: () => void = () => {};

  constructor(options: SimulatorStateOptions = {}) {
    this.tenant = options.tenant ?? defaultTenant();
    this.conciergeRouteTtlMs = options.conciergeRouteTtlMs ?? 120_000;
    this.sessionTtlMs = options.sessionTtlMs ?? 15 * 60_000;
  }

  now(): number {
    return Date.now() + this.clockOffsetMs;
  }

  snapshot(): SimSnapshot {
    return {
      version: 1,
      tenant: this.tenant,
      meetings: [...this.meetings.values()],
      rotation: this.rotation,
      clockOffsetMs: this.clockOffsetMs,
      nextAttendeeId: this.nextAttendeeId,
    };
  }

  restore(snapshot: SimSnapshot) {
    this.tenant = snapshot.tenant;
    this.meetings = new Map(snapshot.meetings.map((m) => [m.id, m]));
    this.rotation = snapshot.rotation ?? {};
    this.clockOffsetMs = snapshot.clockOffsetMs ?? 0;
    this.nextAttendeeId = snapshot.nextAttendeeId ?? 1;
  }

  // ---- credentials -------------------------------------------------------------------------------------------

  permissionsOf(key: string): string[] | null {
    return this.tenant.apiKeys.find((k) => k.key === key)?.permissions ?? null;
  }

  createApiKey(permissions: string[] | "full-access"): string {
    const key = `cpsim_${randomBytes(16).toString("hex")}`;
    this.tenant.apiKeys.push({ key, permissions: permissions === "full-access" ? [...CHILI_PIPER_PERMISSIONS] : [...permissions] });
    this.onChange();
    return key;
  }

  // ---- directory ---------------------------------------------------------------------------------------------

  user(id: string): SimUser | undefined {
    return this.tenant.users.find((u) => u.id === id);
  }

  private requireWorkspace(id: string) {
    const ws = this.tenant.workspaces.find((w) => w.id === id);
    if (!ws) throw new SimError(404, "WorkspaceNotFound", `Workspace ${id} not found`, { workspaceId: id });
    return ws;
  }

  private meetingType(id: string): SimMeetingType {
    const type = this.tenant.meetingTypes.find((t) => t.id === id);
    if (!type) throw new SimError(500, "InternalError", "Meeting type missing");
    return type;
  }

  crmContact(email: string) {
    const normalized = email.trim().toLowerCase();
    const listed = this.tenant.crmContacts.find((c) => c.email.toLowerCase() === normalized);
    if (listed) return listed;
    const domain = normalized.split("@")[1];
    if (domain && this.tenant.crmContactDomains.includes(domain)) {
      return { email: normalized, ownerUserId: this.tenant.users[0]!.id };
    }
    return undefined;
  }

  addCrmContact(email: string, ownerUserId?: string) {
    this.tenant.crmContacts.push({ email: email.toLowerCase(), ownerUserId: ownerUserId ?? this.tenant.users[0]!.id });
    this.onChange();
  }

  renameConciergeRouter(routerId: string, name: string): SimConciergeRouter {
    const router = this.tenant.conciergeRouters.find((r) => r.id === routerId);
    if (!router) throw new SimError(404, "RouterNotFound", `Router ${routerId} not found`);
    router.name = name;
    router.slug = name.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "");
    this.onChange();
    return router;
  }

  // ---- availability ------------------------------------------------------------------------------------------

  private hostBusy(userId: string, start: number, end: number): boolean {
    for (const m of this.meetings.values()) {
      if (m.status !== "Active" || m.hostUserId !== userId) continue;
      if (Date.parse(m.startTime) < end && Date.parse(m.endTime) > start) return true;
    }
    return false;
  }

  private slots(hostUserId: string, interval: unknown, durationMinutes: number): string[] {
    return openSlots(interval, durationMinutes, (start, end) => this.hostBusy(hostUserId, start, end));
  }

  private nextAssignee(distributionId: string): string {
    const distribution = this.tenant.distributions.find((d) => d.id === distributionId);
    if (!distribution) throw new SimError(404, "DistributionNotFound", `Distribution ${distributionId} not found`);
    if (distribution.assignees.length === 0) {
      throw new SimError(422, "NoAssignees", `Distribution "${distribution.name}" has no active assignees`, { distributionId });
    }
    const turn = this.rotation[distributionId] ?? 0;
    this.rotation[distributionId] = turn + 1;
    this.onChange();
    return distribution.assignees[turn % distribution.assignees.length]!;
  }

  private hostFor(outcome: SimRouterOutcome): { hostUserId: string; distributionId?: string } {
    if (outcome.distributionId) return { hostUserId: this.nextAssignee(outcome.distributionId), distributionId: outcome.distributionId };
    return { hostUserId: outcome.userId! };
  }

  /** Forgets sessions that expired more than an hour ago (a long-running embedded simulator would otherwise grow). */
  private pruneSessions(now: number) {
    for (const [key, session] of this.sessions) if (session.expiresAt < now - 3_600_000) this.sessions.delete(key);
  }

  private openSession(session: Omit<RouteSession, "id" | "createdAt" | "expiresAt" | "used">, ttlMs: number): RouteSession {
    const now = this.now();
    this.pruneSessions(now);
    const full: RouteSession = { ...session, id: randomUUID(), createdAt: now, expiresAt: now + ttlMs, used: false };
    this.sessions.set(full.id, full);
    return full;
  }

  private guestOf(body: Record<string, unknown>, email: unknown): SimGuest {
    if (typeof email !== "string" || !/.+@.+/.test(email)) throw new SimError(400, "InvalidGuestEmail", "Invalid value for: body (guestEmail)", {}, true);
    const guest = (body.guest ?? {}) as Record<string, unknown>;
    const str = (v: unknown) => (typeof v === "string" && v.trim() ? v.trim() : undefined);
    return { email, name: str(guest.name), timeZone: str(guest.timeZone), phoneNumber: str(guest.phoneNumber) };
  }

  // ---- step 1: init / route ----------------------------------------------------------------------------------

  initLink(body: Record<string, unknown>) {
    const ref = body.link;
    const link = this.tenant.links.find((l) => l.id === ref || l.slug === ref);
    if (!link) throw new SimError(404, "SchedulingLinkNotFound", `Scheduling link ${String(ref)} not found`);
    const guestEmail = body.guestEmail ?? (body.guest as { email?: unknown } | undefined)?.email;
    if (link.type === "ownership" && typeof guestEmail !== "string") {
      throw new SimError(400, "GuestEmailRequired", "guestEmail is required for ownership links", {}, true);
    }
    const guest = this.guestOf(body, guestEmail);
    const { hostUserId, distributionId } = this.linkHost(link, guest.email);
    const type = this.meetingType(link.meetingTypeId);
    const session = this.openSession(
      {
        kind: "link",
        singleUse: false,
        hostUserId,
        distributionId,
        workspaceId: link.workspaceId,
        meetingTypeId: type.id,
        startTimes: this.slots(hostUserId, body.interval, type.durationMinutes),
        guest,
        linkId: link.id,
        bookerUserId: typeof body.bookerId === "string" ? body.bookerId : undefined,
      },
      this.sessionTtlMs,
    );
    return { routeId: session.id, schedulingData: { routeId: session.id, startTimes: session.startTimes }, linkId: link.id, workspaceId: link.workspaceId };
  }

  private linkHost(link: SimLink, guestEmail: string): { hostUserId: string; distributionId?: string } {
    if (link.type === "ownership") {
      const owner = this.crmContact(guestEmail)?.ownerUserId;
      if (owner) return { hostUserId: owner };
      return { hostUserId: this.nextAssignee(link.distributionId!), distributionId: link.distributionId };
    }
    if (link.type === "round-robin") return { hostUserId: this.nextAssignee(link.distributionId!), distributionId: link.distributionId };
    return { hostUserId: link.hostUserId! };
  }

  initHandoff(workspaceId: string, bookerUserId: string, body: Record<string, unknown>) {
    this.requireWorkspace(workspaceId);
    const booker = this.user(bookerUserId);
    if (!booker) throw new SimError(404, "UserNotFound", `Booker ${bookerUserId} not found`);
    if (!booker.workspaces.includes(workspaceId)) throw new SimError(403, "BookerNotInWorkspace", "The booker is not a member of this workspace");
    if (body.type !== "GuestEmailRequest") throw new SimError(400, "UnsupportedRequest", "Invalid value for: body (type)", {}, true);
    const guest = this.guestOf(body, body.guestEmail);
    if (!this.crmContact(guest.email)) {
      throw new SimError(404, "CrmRecordNotFound", `No CRM lead or contact matches ${guest.email}`, { guestEmail: guest.email });
    }
    const routers = this.tenant.handoffRouters.filter(
      (r) => r.workspaceId === workspaceId && (body.routerId === undefined || r.id === body.routerId),
    );
    if (routers.length === 0) throw new SimError(404, "RouterNotFound", "No handoff router matches");
    const routingId = randomUUID();
    this.pruneSessions(this.now());
    const results = routers.map((router) => {
      const pathId = `${router.id}:catch-all`;
      const { hostUserId, distributionId } = this.hostFor(router.catchAll);
      const type = this.meetingType(router.catchAll.meetingTypeId);
      const startTimes = this.slots(hostUserId, body.interval, type.durationMinutes);
      this.sessions.set(`${routingId}/${router.id}/${pathId}`, {
        id: routingId,
        kind: "handoff",
        createdAt: this.now(),
        expiresAt: this.now() + this.sessionTtlMs,
        singleUse: false,
        used: false,
        hostUserId,
        distributionId,
        workspaceId,
        meetingTypeId: type.id,
        startTimes,
        guest,
        routerId: router.id,
        pathId,
        bookerUserId,
      });
      return { routerId: router.id, pathResults: [{ pathId, distributionId, startTimes }] };
    });
    return { routingId, routers: results };
  }

  routeConcierge(slug: string, body: Record<string, unknown>) {
    const router = this.tenant.conciergeRouters.find((r) => r.slug === slug);
    if (!router) throw new SimError(404, "RouterNotFound", `No concierge router with slug ${slug}`);
    const form = (body.form ?? {}) as Record<string, unknown>;
    const email = form.PersonEmail;
    const options = (body.options ?? {}) as Record<string, unknown>;
    const name = [form.PersonFirstName, form.PersonLastName].filter((v) => typeof v === "string" && v).join(" ");
    const guest: SimGuest = {
      ...this.guestOf({}, email),
      name: name || undefined,
      phoneNumber: typeof form.PersonPhone === "string" ? form.PersonPhone : undefined,
      timeZone: typeof options.timeZone === "string" ? options.timeZone : undefined,
    };
    if (body.interval === undefined) {
      return { routingLink: `https://sim-acme.chilipiper.example/concierge-router/${router.slug}?email=${encodeURIComponent(guest.email)}` };
    }
    const { hostUserId, distributionId } = this.hostFor(router.catchAll);
    const type = this.meetingType(router.catchAll.meetingTypeId);
    const ttl = typeof options.timeoutInMS === "number" ? Math.min(Math.max(options.timeoutInMS, 1_000), this.conciergeRouteTtlMs) : this.conciergeRouteTtlMs;
    const session = this.openSession(
      {
        kind: "concierge",
        singleUse: true,
        hostUserId,
        distributionId,
        workspaceId: router.workspaceId,
        meetingTypeId: type.id,
        startTimes: this.slots(hostUserId, body.interval, type.durationMinutes),
        guest,
        routerId: router.id,
      },
      ttl,
    );
    return {
      routeId: session.id,
      schedulingData: { routeId: session.id, startTimes: session.startTimes, timeoutInMS: ttl },
      routerId: router.id,
      workspaceId: router.workspaceId,
    };
  }

  // ---- step 2: schedule --------------------------------------------------------------------------------------

  schedule(sessionKey: string, body: Record<string, unknown>) {
    const session = this.sessions.get(sessionKey);
    if (!session) throw new SimError(404, "RouteNotFound", "Unknown routeId: start again with a fresh route call");
    if (session.singleUse && session.used) {
      throw new SimError(409, "RouteAlreadyUsed", "This routeId has already been used; route IDs are single-use");
    }
    if (this.now() >= session.expiresAt) {
      throw new SimError(410, "RouteExpired", "This routeId has expired: start again with a fresh route call");
    }
    const startTime = body.startTime;
    if (typeof startTime !== "string" || !session.startTimes.includes(startTime)) {
      throw new SimError(409, "SlotNotOffered", "startTime is not one of the slots this route returned (pass it back verbatim)");
    }
    const type = this.meetingType(session.meetingTypeId);
    const start = Date.parse(startTime);
    const end = start + type.durationMinutes * 60_000;
    if (this.hostBusy(session.hostUserId, start, end)) throw new SimError(409, "SlotTaken", "The slot is no longer available");
    // A schedule call consumes a single-use route even when it books; a failed one above does not.
    session.used = true;
    const id = randomUUID();
    const meeting: SimMeeting = {
      id,
      workspaceId: session.workspaceId,
      meetingTypeId: type.id,
      status: "Active",
      startTime: new Date(start).toISOString(),
      endTime: new Date(end).toISOString(),
      hostUserId: session.hostUserId,
      assigneeUserId: session.hostUserId,
      bookerUserId: session.bookerUserId,
      source: {
        type: session.kind === "link" ? "SchedulingLink" : session.kind === "handoff" ? "Handoff" : "Concierge",
        routeId: session.id,
        linkId: session.linkId,
        routerId: session.routerId,
        distributionId: session.distributionId,
      },
      location: type.location.type === "Video" ? { type: "Video", joinUrl: `${type.location.joinUrlBase}${id.slice(0, 8)}` } : { type: "InPerson", address: type.location.address },
      attendees: [{ ...session.guest, id: this.nextAttendeeId++, absent: false }],
      createdAt: new Date(this.now()).toISOString(),
    };
    this.meetings.set(id, meeting);
    this.onChange();
    return scheduleResponseView(meeting, this.user(meeting.hostUserId)!);
  }

  // ---- meetings ----------------------------------------------------------------------------------------------

  requireMeeting(id: string): SimMeeting {
    const meeting = this.meetings.get(id);
    if (!meeting) throw new SimError(404, "MeetingNotFound", `Meeting ${id} not found`, { meetingId: id });
    return meeting;
  }

  meetingRecord(id: string) {
    const meeting = this.requireMeeting(id);
    return meetingRecordView(meeting, this.user(meeting.hostUserId));
  }

  cancelMeeting(id: string, body: Record<string, unknown>) {
    const m = this.requireMeeting(id);
    if (m.status === "Canceled") return { type: "Failure" as const, reason: "AlreadyCanceled" };
    m.status = "Canceled";
    m.canceledAt = new Date(this.now()).toISOString();
    if (typeof body.cancellationReason === "string") m.cancellationReason = body.cancellationReason;
    this.onChange();
    return { type: "Success" as const };
  }

  attendees(id: string) {
    return this.requireMeeting(id).attendees.map((a) => attendeeView(a, id));
  }

  addAttendee(id: string, body: Record<string, unknown>) {
    const m = this.requireMeeting(id);
    if (m.status === "Canceled") throw new SimError(409, "MeetingCanceled", "The meeting is cancelled");
    if (this.now() >= Date.parse(m.startTime)) throw new SimError(409, "MeetingAlreadyStarted", "The meeting has already started");
    const email = body.email;
    if (typeof email !== "string" || !/^[^\s@]+@[^\s@]+$/.test(email)) throw new SimError(400, "InvalidEmail", "Invalid value for: body (email)", {}, true);
    const str = (v: unknown) => (typeof v === "string" && v.trim() ? v.trim() : undefined);
    const attendee: SimAttendee = {
      id: this.nextAttendeeId++,
      email,
      name: str(body.name),
      timeZone: str(body.timeZone),
      phoneNumber: str(body.phoneNumber),
      language: str(body.language),
      absent: false,
    };
    m.attendees.push(attendee);
    this.onChange();
    return attendeeView(attendee, id);
  }

  // ---- listings ----------------------------------------------------------------------------------------------

  linkDetail(link: SimLink) {
    return linkDetailView(link, this.meetingType(link.meetingTypeId));
  }
}
