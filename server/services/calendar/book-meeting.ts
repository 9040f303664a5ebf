import { eq, sql } from "drizzle-orm";
import type { Db } from "@/db";
import { findCallWithSequenceAndAgent } from "@/db/queries/calls";
import {
  calls,
  meetings,
  type BookingConfig,
  type BookingMode,
  type CallAction,
  type CrmSchedulingDetails,
  type FollowUpMeetingDetails,
} from "@/db/schema";
import { AppError } from "@/server/errors";
import {
  ProviderRequestError,
  type ChiliPiperClient,
  type Guest,
  type Interval,
  type ScheduledMeeting,
} from "@/server/providers/chili-piper/client";
import { CALENDAR_PROVIDER, openProviderClient } from "./provider-connection";
import { getLogger } from "@/server/observability/logger";

/** Why a booking attempt did not book. Recorded on the meeting row and returned; never thrown. */
export type BookingErrorCode =
  | "PROVIDER_NOT_CONNECTED"
  | "MISSING_EMAIL"
  | "CRM_NO_MATCH"
  | "NO_AVAILABILITY"
  | "CONFIG_INVALID"
  | "PROVIDER_ERROR"
  | "PROVIDER_UNAVAILABLE"
  | "INTERNAL_ERROR";

export type BookingResult =
  | {
      status: "booked";
      mode: BookingMode;
      bookingUid: string;
      followUpMeetingDetails: FollowUpMeetingDetails;
      crmSchedulingDetails: CrmSchedulingDetails;
      /** True when an earlier attempt had already booked this call (nothing new was booked). */
      alreadyBooked: boolean;
      action: CallAction;
    }
  | { status: "failed"; mode: BookingMode; errorCode: BookingErrorCode; message: string; action: CallAction }
  | { status: "skipped"; reason: "CALL_NOT_FOUND" | "NO_BOOKING_CONFIG" | "BOOKING_IN_PROGRESS" | "ALREADY_BOOKED"; message: string };

export type BookMeetingForCallParams = {
  callId: string;
  /** When given, the call must belong to this organization. */
  organizationId?: string;
  /** The moment availability is searched from (default now). Seeds pass past dates to book historical meetings. */
  now?: Date;
  /** A time the caller asked for: the first offered slot at or after it is booked (else the first slot). */
  preferredStartTime?: string | Date;
  /** A workspace named in the conversation (ID or name); known input values are consulted too. */
  workspaceHint?: string;
  /** Availability window searched (ISO-8601 duration); default 7 days. */
  searchWindow?: string;
  baseUrl?: string;
};

/** A claim older than this is treated as abandoned (the process died mid-booking) and may be taken over. */
const STALE_CLAIM_MS = 2 * 60_000;
const WORKSPACE_VARIABLES = ["workspaceId", "workspace_id", "workspace", "workspace_name", "workspaceName"];

class BookingFailure extends Error {
  constructor(
    readonly errorCode: BookingErrorCode,
    message: string,
  ) {
    super(message);
  }
}

function action(now: Date, status: "completed" | "failed", description: string, metadata: Record<string, unknown>): CallAction {
  return { description, status, actionKey: "book_meeting", completedAt: now.toISOString(), metadata };
}

function pickSlot(startTimes: string[], preferred?: string | Date): string | undefined {
  if (startTimes.length === 0) return undefined;
  if (preferred) {
    const at = new Date(preferred).getTime();
    const match = startTimes.find((s) => Date.parse(s) >= at);
    if (match) return match;
  }
  return startTimes[0];
}

/** Provider refusals of a schedule call that a fresh route call can overcome (expired/used route, slot just taken). */
function isStaleRoute(error: unknown): boolean {
  return (
    error instanceof ProviderRequestError &&
    (error.providerStatus === 410 || (error.providerStatus === 409 && ["RouteAlreadyUsed", "SlotTaken", "SlotNotOffered"].includes(error.providerErrorCode ?? "")))
  );
}

type Booked = { meeting: ScheduledMeeting; workspaceId: string | null; routeId: string };

async function resolveWorkspace(client: ChiliPiperClient, configured: string, hints: Array<string | undefined>): Promise<string> {
  const wanted = hints.map((h) => h?.trim()).filter((h): h is string => Boolean(h));
  if (wanted.length === 0) return configured;
  const workspaces = await client.listWorkspaces();
  for (const hint of wanted) {
    const match = workspaces.find((w) => w.id === hint || w.name.toLowerCase() === hint.toLowerCase());
    if (match) return match.id;
  }
  return configured;
}

/** Step one of a booking: the route (or init) call's slot for the caller, and step two, which books it. */
type RoutedSlot = { slot: string; routeId: string; schedule: () => Promise<Booked> };

async function routeThroughProvider(
  client: ChiliPiperClient,
  config: BookingConfig,
  input: { guest: Guest; interval: Interval; preferred?: string | Date; workspaceHints: Array<string | undefined> },
): Promise<RoutedSlot> {
  const noSlots = () => new BookingFailure("NO_AVAILABILITY", "The provider offered no available slot in the search window.");

  if (config.mode === "link") {
    const session = await client.initSchedulingLink({ link: config.schedulingLinkId!, interval: input.interval, guest: input.guest });
    const slot = pickSlot(session.startTimes, input.preferred);
    if (!slot) throw noSlots();
    return {
      slot,
      routeId: session.routeId,
      schedule: async () => {
        const meeting = await client.scheduleSchedulingLink(session.routeId, slot);
        return { meeting, workspaceId: meeting.workspaceId ?? config.workspaceId ?? null, routeId: session.routeId };
      },
    };
  }

  if (config.mode === "concierge") {
    // The router's stable ID is stored; its current address (slug) is looked up now.
    const router = await client.getConciergeRouter(config.conciergeRouterId!);
    if (!router?.slug) throw new BookingFailure("CONFIG_INVALID", `Concierge router ${config.conciergeRouterId} no longer exists at the provider.`);
    const session = await client.routeConcierge({ slug: router.slug, guest: input.guest, interval: input.interval });
    const slot = pickSlot(session.startTimes, input.preferred);
    if (!slot) throw noSlots();
    return {
      slot,
      routeId: session.routeId,
      schedule: async () => {
        const meeting = await client.scheduleConcierge(session.routeId, slot);
        return { meeting, workspaceId: meeting.workspaceId ?? router.workspaceId, routeId: session.routeId };
      },
    };
  }

  const workspaceId = await resolveWorkspace(client, config.workspaceId!, input.workspaceHints);
  let session;
  try {
    session = await client.initHandoff({ workspaceId, bookerId: config.bookerId!, guest: input.guest, interval: input.interval, routerId: config.routerId });
  } catch (error) {
    // No CRM match fails the booking: no scheduling link is used instead.
    if (error instanceof ProviderRequestError && error.providerErrorCode === "CrmRecordNotFound") {
      throw new BookingFailure("CRM_NO_MATCH", `No CRM lead or contact matches ${input.guest.email}; CRM-dependent booking needs one.`);
    }
    throw error;
  }
  const router = session.routers.find((r) => r.routerId === config.routerId);
  // Assignment always goes through the configured distribution, never directly to a user.
  const path = router?.paths.find((p) => p.distributionId === config.distributionId);
  if (!router || !path) {
    throw new BookingFailure("CONFIG_INVALID", `Handoff router ${config.routerId} offered no path through distribution ${config.distributionId}.`);
  }
  const slot = pickSlot(path.startTimes, input.preferred);
  if (!slot) throw noSlots();
  return {
    slot,
    routeId: session.routingId,
    schedule: async () => {
      const meeting = await client.scheduleHandoff({ routingId: session.routingId, routerId: router.routerId, pathId: path.pathId, bookerId: config.bookerId!, startTime: slot });
      return { meeting, workspaceId: meeting.workspaceId ?? workspaceId, routeId: session.routingId };
    },
  };
}

async function bookThroughProvider(
  client: ChiliPiperClient,
  config: BookingConfig,
  input: { guest: Guest; interval: Interval; preferred?: string | Date; workspaceHints: Array<string | undefined> },
): Promise<Booked> {
  return (await routeThroughProvider(client, config, input)).schedule();
}

export type OfferTestSlotParams = {
  organizationId: string;
  bookingConfig: BookingConfig;
  guest: { email: string | null; name: string; timeZone: string };
  variables: Record<string, string>;
  preferredStartTime?: string | Date;
  now: Date;
  baseUrl?: string;
};

export type TestSlotOffer =
  | { status: "offered"; mode: BookingMode; startTime: string; routeId: string }
  | { status: "failed"; mode: BookingMode; errorCode: BookingErrorCode; message: string };

/**
 * Agent tests' `book_meeting`: step one of the agent's booking mode against the real provider (its routing rules, its
 * live availability, the slot the caller would get) — and no step two: nothing is booked, so nothing needs cancelling.
 * Failures are those a call would see (not connected, no email, no CRM match, no availability).
 */
export async function offerSlotForTest(db: Db, params: OfferTestSlotParams): Promise<TestSlotOffer> {
  const mode = params.bookingConfig.mode;
  try {
    const opened = await openProviderClient(db, { organizationId: params.organizationId, baseUrl: params.baseUrl });
    if (!opened) throw new BookingFailure("PROVIDER_NOT_CONNECTED", "The organization has not connected its Chili Piper account.");
    const email = params.guest.email ?? params.variables.email ?? params.variables.toEmailAddress;
    if (!email) throw new BookingFailure("MISSING_EMAIL", "The contact has no email address: the invite cannot be sent.");
    const routed = await routeThroughProvider(opened.client, params.bookingConfig, {
      guest: { email, name: params.guest.name, timeZone: params.guest.timeZone },
      interval: { startsAt: params.now.toISOString(), duration: "P7D" },
      preferred: params.preferredStartTime,
      workspaceHints: WORKSPACE_VARIABLES.map((key) => params.variables[key]),
    });
    return { status: "offered", mode, startTime: new Date(routed.slot).toISOString(), routeId: routed.routeId };
  } catch (error) {
    if (error instanceof BookingFailure) return { status: "failed", mode, errorCode: error.errorCode, message: error.message };
    if (error instanceof AppError && (error.code === "PROVIDER_ERROR" || error.code === "PROVIDER_UNAVAILABLE")) return { status: "failed", mode, errorCode: error.code, message: error.message };
    getLogger("calendar").error({ err: error }, "test booking failed unexpectedly");
    return { status: "failed", mode, errorCode: "INTERNAL_ERROR", message: "The booking failed because of an internal error." };
  }
}

/**
 * Books the caller of a call into a meeting through the agent's configured mode (the two-step flow: route/init for
 * slots and a route ID, then schedule with that route ID and the chosen slot), and writes the call's
 * `followUpMeetingDetails` and `crmSchedulingDetails`. Used by the call engine for calls that reach their goal when
 * the agent has a booking configuration.
 *
 * Never throws for a failed booking: a failure is recorded on the call's meeting row and returned, and the call goes
 * on. At most one meeting per call: a second call for a booked call returns the first booking; concurrent calls are
 * serialized by a claim on the meeting row.
 */
export async function bookMeetingForCall(db: Db, params: BookMeetingForCallParams): Promise<BookingResult> {
  const now = params.now ?? new Date();
  const row = await findCallWithSequenceAndAgent(db, { callId: params.callId, organizationId: params.organizationId ?? null });
  if (!row) return { status: "skipped", reason: "CALL_NOT_FOUND", message: `Call ${params.callId} not found.` };
  const config = row.agent.bookingConfig;
  if (!config) return { status: "skipped", reason: "NO_BOOKING_CONFIG", message: "The agent has no calendar booking configured." };
  const mode = config.mode;

  const claimed = await db
    .insert(meetings)
    .values({
      callId: row.call.id,
      organizationId: row.call.organizationId,
      agentId: row.call.agentId,
      provider: CALENDAR_PROVIDER,
      mode,
      status: "booking",
      attempts: 1,
      claimedAt: new Date(),
    })
    .onConflictDoUpdate({
      target: meetings.callId,
      set: { status: "booking", mode, attempts: sql`"meetings"."attempts" + 1`, claimedAt: new Date(), errorCode: null, errorMessage: null, updatedAt: new Date() },
      setWhere: sql`"meetings"."status" = 'failed' or ("meetings"."status" = 'booking' and "meetings"."claimed_at" < ${new Date(Date.now() - STALE_CLAIM_MS).toISOString()}::timestamptz)`,
    })
    .returning({ callId: meetings.callId });
  if (claimed.length === 0) return existingBooking(db, row.call.id, now);

  try {
    const opened = await openProviderClient(db, { organizationId: row.call.organizationId, baseUrl: params.baseUrl });
    if (!opened) throw new BookingFailure("PROVIDER_NOT_CONNECTED", "The organization has not connected its Chili Piper account.");
    const variables = row.sequence.customInputVariables ?? {};
    const email = row.sequence.toEmailAddress ?? variables.email ?? variables.toEmailAddress;
    if (!email) throw new BookingFailure("MISSING_EMAIL", "The contact has no email address: the invite cannot be sent.");
    const guest: Guest = { email, name: row.sequence.name, timeZone: row.sequence.timezone, phoneNumber: row.sequence.phoneNumber };
    const input = {
      guest,
      interval: { startsAt: now.toISOString(), duration: params.searchWindow ?? "P7D" },
      preferred: params.preferredStartTime,
      workspaceHints: [params.workspaceHint, ...WORKSPACE_VARIABLES.map((key) => variables[key])],
    };
    let booked: Booked;
    try {
      booked = await bookThroughProvider(opened.client, config, input);
    } catch (error) {
      // Route IDs are single-use and short-lived: on a stale route, start again from the route call, once.
      if (!isStaleRoute(error)) throw error;
      booked = await bookThroughProvider(opened.client, config, input);
    }

    const followUpMeetingDetails: FollowUpMeetingDetails = {
      startTime: new Date(booked.meeting.startTime).toISOString(),
      endTime: new Date(booked.meeting.endTime).toISOString(),
      hostEmail: booked.meeting.hostEmail,
      meetingLink: booked.meeting.meetingLink,
    };
    const crmSchedulingDetails: CrmSchedulingDetails = {
      provider: CALENDAR_PROVIDER,
      mode,
      bookingUid: booked.meeting.meetingId,
      status: "booked",
      ...(booked.workspaceId ? { workspaceId: booked.workspaceId } : {}),
      routeId: booked.routeId,
    };
    await db.transaction(async (tx) => {
      await tx
        .update(meetings)
        .set({
          status: "booked",
          bookingUid: booked.meeting.meetingId,
          workspaceId: booked.workspaceId,
          routeId: booked.routeId,
          startTime: new Date(followUpMeetingDetails.startTime),
          endTime: new Date(followUpMeetingDetails.endTime),
          hostEmail: followUpMeetingDetails.hostEmail,
          meetingLink: followUpMeetingDetails.meetingLink,
          errorCode: null,
          errorMessage: null,
          claimedAt: null,
          updatedAt: new Date(),
        })
        .where(eq(meetings.callId, row.call.id));
      await tx.update(calls).set({ followUpMeetingDetails, crmSchedulingDetails, updatedAt: new Date() }).where(eq(calls.id, row.call.id));
    });
    return {
      status: "booked",
      mode,
      bookingUid: booked.meeting.meetingId,
      followUpMeetingDetails,
      crmSchedulingDetails,
      alreadyBooked: false,
      action: action(now, "completed", `Booked a meeting with ${followUpMeetingDetails.hostEmail} at ${followUpMeetingDetails.startTime}`, {
        provider: CALENDAR_PROVIDER,
        mode,
        bookingUid: booked.meeting.meetingId,
        startTime: followUpMeetingDetails.startTime,
        hostEmail: followUpMeetingDetails.hostEmail,
      }),
    };
  } catch (error) {
    let errorCode: BookingErrorCode;
    let message: string;
    if (error instanceof BookingFailure) {
      errorCode = error.errorCode;
      message = error.message;
    } else if (error instanceof AppError && (error.code === "PROVIDER_ERROR" || error.code === "PROVIDER_UNAVAILABLE")) {
      errorCode = error.code;
      message = error.message;
    } else {
      getLogger("calendar").error({ callId: row.call.id, err: error }, "booking failed unexpectedly");
      errorCode = "INTERNAL_ERROR";
      message = "The booking failed because of an internal error.";
    }
    await db
      .update(meetings)
      .set({ status: "failed", errorCode, errorMessage: message, claimedAt: null, updatedAt: new Date() })
      .where(eq(meetings.callId, row.call.id))
      .catch((writeError: unknown) => getLogger("calendar").error({ callId: row.call.id, err: writeError }, "could not record the failed booking"));
    return {
      status: "failed",
      mode,
      errorCode,
      message,
      action: action(now, "failed", `Could not book a meeting: ${message}`, { provider: CALENDAR_PROVIDER, mode, errorCode }),
    };
  }
}

async function existingBooking(db: Db, callId: string, now: Date): Promise<BookingResult> {
  const [meeting] = await db.select().from(meetings).where(eq(meetings.callId, callId)).limit(1);
  if (meeting?.status === "booked" && meeting.bookingUid && meeting.startTime && meeting.endTime) {
    const followUpMeetingDetails: FollowUpMeetingDetails = {
      startTime: meeting.startTime.toISOString(),
      endTime: meeting.endTime.toISOString(),
      hostEmail: meeting.hostEmail ?? "",
      meetingLink: meeting.meetingLink ?? "",
    };
    const mode = meeting.mode as BookingMode;
    return {
      status: "booked",
      mode,
      bookingUid: meeting.bookingUid,
      followUpMeetingDetails,
      crmSchedulingDetails: {
        provider: meeting.provider,
        mode,
        bookingUid: meeting.bookingUid,
        status: "booked",
        ...(meeting.workspaceId ? { workspaceId: meeting.workspaceId } : {}),
        ...(meeting.routeId ? { routeId: meeting.routeId } : {}),
      },
      alreadyBooked: true,
      action: action(now, "completed", "A meeting was already booked for this call", { provider: meeting.provider, mode, bookingUid: meeting.bookingUid }),
    };
  }
  if (meeting?.status === "booking") {
    return { status: "skipped", reason: "BOOKING_IN_PROGRESS", message: "Another booking attempt for this call is in progress." };
  }
  return { status: "skipped", reason: "ALREADY_BOOKED", message: "A meeting was booked for this call and has since been cancelled." };
}
