import type { z } from "zod";
import { chiliPiperBaseUrl, chiliPiperTimeoutMs } from "./config";
import { PERMISSION_PROBES } from "./permission-probes";
import { CHILI_PIPER_PERMISSIONS, type ChiliPiperPermission } from "./permissions";
import { isProviderStatus, ProviderRequestError } from "./provider-error";
import {
  attendeeOf,
  locationText,
  meetingStatus,
  routeSession,
  routerOutcomes,
  scheduled,
  ZAttendeeAdded,
  ZAttendeeList,
  ZCancelResult,
  ZDistribution,
  ZHandoffSession,
  ZLinkList,
  ZMeetingRecord,
  ZPage,
  ZRouter,
  ZRouteSession,
  ZScheduled,
  ZUser,
  ZWorkspace,
} from "./responses";
import type {
  ConciergeRouter,
  Distribution,
  Guest,
  HandoffRouter,
  HandoffSession,
  Interval,
  NewAttendee,
  ProviderAttendee,
  ProviderMeeting,
  ProviderUser,
  RouteSession,
  ScheduledMeeting,
  SchedulingLink,
  SchedulingLinkType,
  Workspace,
} from "./types";
import { getLogger } from "@/server/observability/logger";

// The provider module's public surface stays here: services import errors and types from client.ts.
export { isProviderStatus, ProviderRequestError } from "./provider-error";
export type {
  Interval,
  Guest,
  Workspace,
  ProviderUser,
  Distribution,
  RouterOutcome,
  HandoffRouter,
  ConciergeRouter,
  SchedulingLinkType,
  SchedulingLink,
  RouteSession,
  HandoffSession,
  ScheduledMeeting,
  ProviderMeetingStatus,
  ProviderMeeting,
  ProviderAttendee,
  NewAttendee,
} from "./types";

export type ChiliPiperClientOptions = {
  apiKey: string;
  baseUrl?: string;
  timeoutMs?: number;
  /** Extra attempts for idempotent reads on unavailability (network error, timeout, 429/502/503/504); default 2. */
  readRetries?: number;
  retryBaseDelayMs?: number;
};

type RequestOptions = { body?: unknown; query?: Record<string, string | number | undefined>; idempotent?: boolean; retries?: number };

const LINK_LIST_PATHS: Record<SchedulingLinkType, string> = {
  "round-robin": "/v1/org/schedulingLinks/list-round-robin",
  "admin-one-on-one": "/v1/org/schedulingLinks/list-admin-one-on-one",
  group: "/v1/org/schedulingLinks/list-group",
  ownership: "/v1/org/schedulingLinks/list-ownership",
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * HTTP client for the Chili Piper Edge API subset we use (and the simulator that mimics it). Every call has a
 * timeout; idempotent reads are retried on unavailability with backoff; writes (route, schedule, cancel, attendee
 * add) are never retried automatically. Errors come out as ProviderRequestError. The API key only ever leaves
 * this object in the Authorization header: it is never logged and is scrubbed from any provider message.
 */
export class ChiliPiperClient {
  private readonly apiKey: string;
  readonly baseUrl: string;
  private readonly timeoutMs: number;
  private readonly readRetries: number;
  private readonly retryBaseDelayMs: number;

  constructor(options: ChiliPiperClientOptions) {
    this.apiKey = options.apiKey;
    this.baseUrl = (options.baseUrl ?? chiliPiperBaseUrl()).replace(/\/+$/, "");
    this.timeoutMs = options.timeoutMs ?? chiliPiperTimeoutMs();
    this.readRetries = options.readRetries ?? 2;
    this.retryBaseDelayMs = options.retryBaseDelayMs ?? 100;
  }

  /** Keeps the key out of `console.log(client)` and JSON dumps. */
  toJSON() {
    return { baseUrl: this.baseUrl, timeoutMs: this.timeoutMs };
  }

  [Symbol.for("nodejs.util.inspect.custom")]() {
    return `ChiliPiperClient(${this.baseUrl})`;
  }

  private scrub(text: string): string {
    return this.apiKey ? text.split(this.apiKey).join("[redacted]") : text;
  }

  private async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const attempts = 1 + (options.idempotent ? (options.retries ?? this.readRetries) : 0);
    let lastError: ProviderRequestError | null = null;
    for (let attempt = 1; attempt <= attempts; attempt++) {
      try {
        return await this.once<T>(method, path, options);
      } catch (error) {
        if (!(error instanceof ProviderRequestError)) throw error;
        lastError = error;
        const retryable = error.code === "PROVIDER_UNAVAILABLE";
        if (!retryable || attempt === attempts) break;
        getLogger("chili-piper").warn({ method, path, attempt, attempts, error: error.message }, "provider request failed; retrying");
        await sleep(this.retryBaseDelayMs * 3 ** (attempt - 1) + Math.floor(Math.random() * this.retryBaseDelayMs));
      }
    }
    throw lastError!;
  }

  private async once<T>(method: string, path: string, options: RequestOptions): Promise<T> {
    const url = new URL(`${this.baseUrl}${path}`);
    for (const [key, value] of Object.entries(options.query ?? {})) if (value !== undefined) url.searchParams.set(key, String(value));
    const headers: Record<string, string> = { authorization: `Bearer ${this.apiKey}`, accept: "application/json" };
    let body: string | undefined;
    if (options.body !== undefined) {
      headers["content-type"] = "application/json";
      body = JSON.stringify(options.body);
    }
    let response: Response;
    try {
      response = await fetch(url, { method, headers, body, signal: AbortSignal.timeout(this.timeoutMs) });
    } catch (error) {
      const name = (error as Error)?.name;
      const timedOut = name === "TimeoutError" || name === "AbortError";
      throw new ProviderRequestError(
        "PROVIDER_UNAVAILABLE",
        timedOut
          ? `The calendar provider did not answer within ${this.timeoutMs} ms. Retry later.`
          : "The calendar provider could not be reached. Retry later.",
        { status: null },
      );
    }
    let text: string;
    try {
      text = await response.text();
    } catch {
      throw new ProviderRequestError("PROVIDER_UNAVAILABLE", "The calendar provider closed the connection. Retry later.", { status: null });
    }
    if (response.ok) {
      if (text.trim() === "") return {} as T;
      try {
        return JSON.parse(text) as T;
      } catch {
        throw new ProviderRequestError("PROVIDER_ERROR", "The calendar provider sent a response that could not be read.", { status: response.status });
      }
    }
    throw this.errorFor(response.status, text);
  }

  private errorFor(status: number, text: string): ProviderRequestError {
    let errorCode: string | null = null;
    let providerMessage = "";
    let args: Record<string, string> = {};
    try {
      const parsed = JSON.parse(text) as { errorCode?: unknown; errorMessage?: unknown; arguments?: unknown };
      errorCode = typeof parsed.errorCode === "string" ? parsed.errorCode : null;
      providerMessage = typeof parsed.errorMessage === "string" ? parsed.errorMessage : "";
      if (parsed.arguments && typeof parsed.arguments === "object") args = parsed.arguments as Record<string, string>;
    } catch {
      providerMessage = text;
    }
    providerMessage = this.scrub(providerMessage).slice(0, 300).trim();
    const detail = providerMessage ? `: ${providerMessage}` : "";
    const info = { status, errorCode, args };
    if (status === 429 || status === 502 || status === 503 || status === 504) {
      return new ProviderRequestError("PROVIDER_UNAVAILABLE", `The calendar provider is temporarily unavailable (HTTP ${status}). Retry later.`, info);
    }
    if (status === 401) {
      return new ProviderRequestError("PROVIDER_ERROR", "The calendar provider rejected the organization's credential: reconnect the provider.", info);
    }
    if (status === 403) {
      const permission = args.permission ? ` (${args.permission})` : "";
      return new ProviderRequestError("PROVIDER_ERROR", `The provider credential lacks a permission this operation needs${permission}.`, info);
    }
    if (status >= 500) return new ProviderRequestError("PROVIDER_ERROR", `The calendar provider failed (HTTP ${status}).`, info);
    return new ProviderRequestError("PROVIDER_ERROR", `The calendar provider refused the request (HTTP ${status}${errorCode ? ` ${errorCode}` : ""})${detail}`, info);
  }

  /** Parses a provider response; a shape we cannot read is the provider's failure (502), not ours. */
  private parse<T>(schema: z.ZodType<T>, data: unknown, what: string): T {
    const result = schema.safeParse(data);
    if (!result.success) {
      throw new ProviderRequestError("PROVIDER_ERROR", `The calendar provider sent an unexpected ${what}.`, { status: 200 });
    }
    return result.data;
  }

  private async get<T>(schema: z.ZodType<T>, what: string, method: string, path: string, options: RequestOptions = {}): Promise<T> {
    return this.parse(schema, await this.request<unknown>(method, path, options), what);
  }

  /** Null on a provider 404 (the thing does not exist), the error otherwise. */
  private async orNull<T>(promise: Promise<T>): Promise<T | null> {
    try {
      return await promise;
    } catch (error) {
      if (isProviderStatus(error, 404)) return null;
      throw error;
    }
  }

  // ---- directory -----------------------------------------------------------------------------------------

  async listWorkspaces(): Promise<Workspace[]> {
    const page = await this.get(ZPage(ZWorkspace), "workspace list", "GET", "/v1/org/workspace", { query: { page: 0, pageSize: 200 }, idempotent: true });
    return (page.results ?? []).map((w) => ({ id: w.id, name: w.name }));
  }

  async readUser(userId: string): Promise<ProviderUser | null> {
    const user = await this.orNull(this.get(ZUser, "user", "GET", `/v1/org/user/read/${encodeURIComponent(userId)}`, { idempotent: true }));
    return user && { id: user.id, name: user.name, email: user.email, workspaces: user.workspaces ?? [] };
  }

  async listDistributions(filter: { workspaceIds?: string[] } = {}): Promise<Distribution[]> {
    const page = await this.get(ZPage(ZDistribution), "distribution list", "PUT", "/v2/org/distribution/list", {
      body: { ...(filter.workspaceIds ? { workspaceIds: filter.workspaceIds } : {}), page: 0, pageSize: 200 },
      idempotent: true,
    });
    return (page.results ?? []).map((d) => ({
      id: d.id,
      name: d.published?.name ?? "",
      workspaceId: d.published?.workspaceId ?? "",
      assignees: (d.state?.userStates ?? []).filter((state) => state.type === "Active").map((state) => state.userId),
    }));
  }

  async getHandoffRouter(routerId: string): Promise<HandoffRouter | null> {
    const r = await this.orNull(this.get(ZRouter, "handoff router", "GET", `/v1/org/handoff/routers/handoff/${encodeURIComponent(routerId)}`, { idempotent: true }));
    return r && { id: r.id, workspaceId: r.workspaceId, name: r.name ?? null, outcomes: routerOutcomes(r.routing) };
  }

  /** The router's current identity, slug included: its address is looked up by stable ID at call time. */
  async getConciergeRouter(routerId: string): Promise<ConciergeRouter | null> {
    const r = await this.orNull(this.get(ZRouter, "concierge router", "GET", `/v1/org/concierge/routers/concierge/${encodeURIComponent(routerId)}`, { idempotent: true }));
    return r && { id: r.id, workspaceId: r.workspaceId, name: r.name ?? null, slug: r.slug ?? null };
  }

  async listSchedulingLinks(): Promise<SchedulingLink[]> {
    const lists = await Promise.all(
      (Object.entries(LINK_LIST_PATHS) as Array<[SchedulingLinkType, string]>).map(async ([type, path]) => {
        const result = await this.get(ZLinkList, "scheduling link list", "POST", path, { body: {}, idempotent: true });
        return (result.links ?? []).map((l) => ({ linkId: l.linkId, type, name: l.name, slug: l.slug, workspaceId: l.workspaceId }));
      }),
    );
    return lists.flat();
  }

  /** Reads which of the permissions we use the key has, by probing each with a request that changes nothing. */
  async readPermissions(): Promise<ChiliPiperPermission[]> {
    const results = await Promise.all(
      CHILI_PIPER_PERMISSIONS.map(async (permission) => {
        const probe = PERMISSION_PROBES[permission];
        try {
          await this.request(probe.method, probe.path, { body: probe.body, query: probe.query, idempotent: true });
          return permission;
        } catch (error) {
          if (!(error instanceof ProviderRequestError)) throw error;
          const status = error.providerStatus;
          if (status === 403) return null;
          // Any other refusal of the probe (404 no such meeting, 400, 409 …) got past the permission check.
          if (status !== null && status >= 400 && status < 500 && status !== 401 && status !== 429) return permission;
          throw error;
        }
      }),
    );
    return results.filter((p): p is ChiliPiperPermission => p !== null);
  }

  // ---- two-step booking ----------------------------------------------------------------------------------

  async initSchedulingLink(params: { link: string; interval: Interval; guest: Guest; bookerId?: string }): Promise<RouteSession> {
    const r = await this.get(ZRouteSession, "routing session", "POST", "/v1/org/schedulingLinks/init-simple", {
      body: { link: params.link, interval: params.interval, guestEmail: params.guest.email, guest: params.guest, ...(params.bookerId ? { bookerId: params.bookerId } : {}) },
    });
    return routeSession(r);
  }

  async scheduleSchedulingLink(routeId: string, startTime: string): Promise<ScheduledMeeting> {
    return scheduled(await this.get(ZScheduled, "booking confirmation", "POST", `/v1/org/schedulingLinks/routing/${encodeURIComponent(routeId)}/schedule-simple`, { body: { startTime } }));
  }

  async initHandoff(params: { workspaceId: string; bookerId: string; guest: Guest; interval: Interval; routerId?: string }): Promise<HandoffSession> {
    const path = `/v1/org/handoff/workspace/${encodeURIComponent(params.workspaceId)}/booker/${encodeURIComponent(params.bookerId)}/init-simple`;
    const r = await this.get(ZHandoffSession, "handoff routing session", "POST", path, {
      body: { type: "GuestEmailRequest", guestEmail: params.guest.email, guest: params.guest, interval: params.interval, ...(params.routerId ? { routerId: params.routerId } : {}) },
    });
    return {
      routingId: r.routingId,
      routers: r.routers.map((router) => ({
        routerId: router.routerId,
        paths: router.pathResults.map((p) => ({ pathId: p.pathId, distributionId: p.distributionId ?? null, startTimes: p.startTimes })),
      })),
    };
  }

  async scheduleHandoff(params: { routingId: string; routerId: string; pathId: string; bookerId: string; startTime: string }): Promise<ScheduledMeeting> {
    const path = `/v1/org/handoff/routing/${encodeURIComponent(params.routingId)}/router/${encodeURIComponent(params.routerId)}/path/${encodeURIComponent(params.pathId)}/booker/${encodeURIComponent(params.bookerId)}/schedule-simple`;
    return scheduled(await this.get(ZScheduled, "booking confirmation", "POST", path, { body: { startTime: params.startTime } }));
  }

  async routeConcierge(params: { slug: string; guest: Guest; interval: Interval }): Promise<RouteSession> {
    const [first, ...rest] = (params.guest.name ?? "").trim().split(/\s+/);
    const form: Record<string, string> = { PersonEmail: params.guest.email };
    if (first) form.PersonFirstName = first;
    if (rest.length) form.PersonLastName = rest.join(" ");
    if (params.guest.phoneNumber) form.PersonPhone = params.guest.phoneNumber;
    const r = await this.get(ZRouteSession, "routing session", "POST", `/v1/org/concierge/routers/${encodeURIComponent(params.slug)}/rest`, {
      body: { form, options: params.guest.timeZone ? { timeZone: params.guest.timeZone } : {}, interval: params.interval },
    });
    return routeSession(r);
  }

  async scheduleConcierge(routeId: string, startTime: string): Promise<ScheduledMeeting> {
    return scheduled(await this.get(ZScheduled, "booking confirmation", "POST", `/v1/org/concierge/routing/${encodeURIComponent(routeId)}/schedule-simple`, { body: { startTime } }));
  }

  // ---- meetings ------------------------------------------------------------------------------------------

  async getMeeting(meetingId: string): Promise<ProviderMeeting | null> {
    const r = await this.orNull(this.get(ZMeetingRecord, "meeting", "GET", `/v1/org/meetings/get/${encodeURIComponent(meetingId)}`, { idempotent: true }));
    if (!r) return null;
    const m = r.data;
    const scheduledAt = m.activities?.find((a) => a.type === "ScheduledAt");
    const canceled = m.activities?.find((a) => a.type === "Canceled");
    const startTime = scheduledAt?.startTime ?? m.startTime;
    if (!startTime) throw new ProviderRequestError("PROVIDER_ERROR", "The calendar provider sent a meeting without a start time.", { status: 200 });
    return {
      id: m.id,
      status: meetingStatus(m.meetingStatus),
      startTime,
      endTime: scheduledAt?.endTime ?? m.endTime ?? null,
      hostEmail: m.host?.email ?? null,
      meetingLink: locationText(m.location) || null,
      workspaceId: m.workspaceId ?? null,
      cancelledAt: canceled?.at ?? null,
    };
  }

  /** Cancels with Cal.com's cancel body; resolves `alreadyCancelled` when the provider says it was cancelled before. */
  async cancelMeeting(meetingId: string, body: { cancellationReason?: string; cancelSubsequentBookings?: boolean }): Promise<{ alreadyCancelled: boolean }> {
    const r = await this.get(ZCancelResult, "cancellation result", "POST", `/v1/org/meetings/cancel/${encodeURIComponent(meetingId)}`, { body });
    if (r.type === "Success") return { alreadyCancelled: false };
    if (r.reason === "AlreadyCanceled") return { alreadyCancelled: true };
    throw new ProviderRequestError("PROVIDER_ERROR", "The calendar provider did not confirm the cancellation.", { status: 200, errorCode: r.reason ?? null });
  }

  async listAttendees(meetingId: string): Promise<ProviderAttendee[]> {
    const r = await this.get(ZAttendeeList, "attendee list", "GET", `/v1/org/meetings/${encodeURIComponent(meetingId)}/attendees`, { idempotent: true });
    return r.data.map(attendeeOf);
  }

  async addAttendee(meetingId: string, attendee: NewAttendee): Promise<ProviderAttendee> {
    const r = await this.get(ZAttendeeAdded, "attendee", "POST", `/v1/org/meetings/${encodeURIComponent(meetingId)}/attendees`, { body: attendee });
    return attendeeOf(r.data);
  }
}

export function createChiliPiperClient(options: ChiliPiperClientOptions): ChiliPiperClient {
  return new ChiliPiperClient(options);
}
