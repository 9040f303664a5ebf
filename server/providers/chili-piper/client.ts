import { AppError, type AppErrorCode } from "@/server/errors";
import { chiliPiperBaseUrl, chiliPiperTimeoutMs } from "./config";
import { CHILI_PIPER_PERMISSIONS, type ChiliPiperPermission } from "./permissions";

/**
 * A failed call to the provider, as an AppError: PROVIDER_UNAVAILABLE (503) when it could not be reached, timed out
 * or said it is unavailable; PROVIDER_ERROR (502) when it answered with an error or something unreadable.
 * `providerStatus`/`providerErrorCode` let services turn a provider 404/409 into their own codes; they are not
 * serialized into API responses.
 */
export class ProviderRequestError extends AppError {
  readonly providerStatus: number | null;
  readonly providerErrorCode: string | null;
  readonly providerArguments: Record<string, string>;

  constructor(
    code: Extract<AppErrorCode, "PROVIDER_ERROR" | "PROVIDER_UNAVAILABLE">,
    message: string,
    provider: { status: number | null; errorCode?: string | null; args?: Record<string, string> },
  ) {
    super(code, message);
    this.name = "ProviderRequestError";
    this.providerStatus = provider.status;
    this.providerErrorCode = provider.errorCode ?? null;
    this.providerArguments = provider.args ?? {};
  }
}

export function isProviderStatus(error: unknown, ...statuses: number[]): error is ProviderRequestError {
  return error instanceof ProviderRequestError && error.providerStatus !== null && statuses.includes(error.providerStatus);
}

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

const NIL = "00000000-0000-0000-0000-000000000000";

/** One side-effect-free request per permission: a 403 means the key lacks it (Edge checks permissions first). */
const PERMISSION_PROBES: Record<ChiliPiperPermission, { method: string; path: string; body?: unknown; query?: Record<string, string> }> = {
  "workspace.read": { method: "GET", path: "/v1/org/workspace", query: { pageSize: "1" } },
  "user.read": { method: "GET", path: "/v1/org/user/find", query: { query: "probe", pageSize: "1" } },
  "meeting.read": { method: "GET", path: `/v1/org/meetings/get/${NIL}` },
  "meeting.modify": { method: "GET", path: `/v1/org/meetings/cancel/${NIL}` },
  "distribution.read": { method: "PUT", path: "/v2/org/distribution/list", body: { pageSize: 1 } },
  "handoff.read": { method: "GET", path: "/v1/org/handoff/routers/handoff/list" },
  "handoff.schedule": { method: "POST", path: `/v1/org/handoff/routing/${NIL}/router/${NIL}/path/${NIL}/booker/${NIL}/schedule-simple`, body: {} },
  "concierge.read": { method: "POST", path: "/v1/org/concierge/routers/concierge/list", body: {} },
  "concierge.schedule": { method: "POST", path: `/v1/org/concierge/routing/${NIL}/schedule-simple`, body: {} },
  "scheduling-links.read": { method: "POST", path: "/v1/org/schedulingLinks/list-round-robin", body: {} },
  "scheduling-links.schedule": { method: "POST", path: `/v1/org/schedulingLinks/routing/${NIL}/schedule-simple`, body: {} },
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function str(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

function locationText(location: unknown): string {
  const loc = (location ?? {}) as Record<string, unknown>;
  return str(loc.joinUrl) ?? str(loc.address) ?? str(loc.url) ?? "";
}

function meetingStatus(value: unknown): ProviderMeetingStatus {
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
        console.warn(`[chili-piper] ${method} ${path}: ${error.message} (attempt ${attempt}/${attempts}, retrying)`);
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

  // ---- directory -----------------------------------------------------------------------------------------

  async listWorkspaces(): Promise<Workspace[]> {
    const page = await this.request<{ results?: Array<{ id: string; name: string }> }>("GET", "/v1/org/workspace", {
      query: { page: 0, pageSize: 200 },
      idempotent: true,
    });
    return (page.results ?? []).map((w) => ({ id: w.id, name: w.name }));
  }

  async readUser(userId: string): Promise<ProviderUser | null> {
    try {
      const user = await this.request<{ id: string; name: string; email: string; workspaces?: string[] }>("GET", `/v1/org/user/read/${encodeURIComponent(userId)}`, { idempotent: true });
      return { id: user.id, name: user.name, email: user.email, workspaces: user.workspaces ?? [] };
    } catch (error) {
      if (isProviderStatus(error, 404)) return null;
      throw error;
    }
  }

  async listDistributions(filter: { workspaceIds?: string[] } = {}): Promise<Distribution[]> {
    const page = await this.request<{ results?: Array<Record<string, any>> }>("PUT", "/v2/org/distribution/list", {
      body: { ...(filter.workspaceIds ? { workspaceIds: filter.workspaceIds } : {}), page: 0, pageSize: 200 },
      idempotent: true,
    });
    return (page.results ?? []).map((d) => {
      const active: string[] = (d.state?.userStates ?? []).filter((s: any) => s?.type === "Active").map((s: any) => String(s.userId));
      return { id: String(d.id), name: String(d.published?.name ?? ""), workspaceId: String(d.published?.workspaceId ?? ""), assignees: active };
    });
  }

  private routerOutcomes(routing: any): RouterOutcome[] {
    const rows: any[] = [...(routing?.rows ?? []).map((r: any) => r?.outcome), routing?.catchAll?.outcome];
    return rows.filter(Boolean).map((o) => ({ type: String(o.type), distributionId: str(o.distributionId), userId: str(o.userId), meetingTypeId: str(o.meetingTypeId) }));
  }

  async getHandoffRouter(routerId: string): Promise<HandoffRouter | null> {
    try {
      const r = await this.request<any>("GET", `/v1/org/handoff/routers/handoff/${encodeURIComponent(routerId)}`, { idempotent: true });
      return { id: r.id, workspaceId: r.workspaceId, name: r.name ?? null, outcomes: this.routerOutcomes(r.routing) };
    } catch (error) {
      if (isProviderStatus(error, 404)) return null;
      throw error;
    }
  }

  /** The router's current identity, slug included: its address is looked up by stable ID at call time. */
  async getConciergeRouter(routerId: string): Promise<ConciergeRouter | null> {
    try {
      const r = await this.request<any>("GET", `/v1/org/concierge/routers/concierge/${encodeURIComponent(routerId)}`, { idempotent: true });
      return { id: r.id, workspaceId: r.workspaceId, name: r.name ?? null, slug: r.slug ?? null };
    } catch (error) {
      if (isProviderStatus(error, 404)) return null;
      throw error;
    }
  }

  async listSchedulingLinks(): Promise<SchedulingLink[]> {
    const lists = await Promise.all(
      (Object.entries(LINK_LIST_PATHS) as Array<[SchedulingLinkType, string]>).map(async ([type, path]) => {
        const result = await this.request<{ links?: Array<Record<string, any>> }>("POST", path, { body: {}, idempotent: true });
        return (result.links ?? []).map((l) => ({ linkId: String(l.linkId), type, name: String(l.name), slug: String(l.slug), workspaceId: String(l.workspaceId) }));
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
          if (error.providerStatus === 403) return null;
          if (error.providerStatus !== null && error.providerStatus >= 400 && error.providerStatus < 500 && error.providerStatus !== 401 && error.providerStatus !== 429) {
            return permission;
          }
          throw error;
        }
      }),
    );
    return results.filter((p): p is ChiliPiperPermission => p !== null);
  }

  // ---- two-step booking ----------------------------------------------------------------------------------

  async initSchedulingLink(params: { link: string; interval: Interval; guest: Guest; bookerId?: string }): Promise<RouteSession> {
    const r = await this.request<any>("POST", "/v1/org/schedulingLinks/init-simple", {
      body: { link: params.link, interval: params.interval, guestEmail: params.guest.email, guest: params.guest, ...(params.bookerId ? { bookerId: params.bookerId } : {}) },
    });
    return { routeId: String(r.routeId ?? r.schedulingData?.routeId), startTimes: r.schedulingData?.startTimes ?? [] };
  }

  async scheduleSchedulingLink(routeId: string, startTime: string): Promise<ScheduledMeeting> {
    return this.scheduled(await this.request<any>("POST", `/v1/org/schedulingLinks/routing/${encodeURIComponent(routeId)}/schedule-simple`, { body: { startTime } }));
  }

  async initHandoff(params: { workspaceId: string; bookerId: string; guest: Guest; interval: Interval; routerId?: string }): Promise<HandoffSession> {
    const r = await this.request<any>("POST", `/v1/org/handoff/workspace/${encodeURIComponent(params.workspaceId)}/booker/${encodeURIComponent(params.bookerId)}/init-simple`, {
      body: { type: "GuestEmailRequest", guestEmail: params.guest.email, guest: params.guest, interval: params.interval, ...(params.routerId ? { routerId: params.routerId } : {}) },
    });
    return {
      routingId: String(r.routingId),
      routers: (r.routers ?? []).map((router: any) => ({
        routerId: String(router.routerId),
        paths: (router.pathResults ?? []).map((p: any) => ({ pathId: String(p.pathId), distributionId: str(p.distributionId) ?? null, startTimes: p.startTimes ?? [] })),
      })),
    };
  }

  async scheduleHandoff(params: { routingId: string; routerId: string; pathId: string; bookerId: string; startTime: string }): Promise<ScheduledMeeting> {
    const path = `/v1/org/handoff/routing/${encodeURIComponent(params.routingId)}/router/${encodeURIComponent(params.routerId)}/path/${encodeURIComponent(params.pathId)}/booker/${encodeURIComponent(params.bookerId)}/schedule-simple`;
    return this.scheduled(await this.request<any>("POST", path, { body: { startTime: params.startTime } }));
  }

  async routeConcierge(params: { slug: string; guest: Guest; interval: Interval }): Promise<RouteSession> {
    const [first, ...rest] = (params.guest.name ?? "").trim().split(/\s+/);
    const form: Record<string, string> = { PersonEmail: params.guest.email };
    if (first) form.PersonFirstName = first;
    if (rest.length) form.PersonLastName = rest.join(" ");
    if (params.guest.phoneNumber) form.PersonPhone = params.guest.phoneNumber;
    const r = await this.request<any>("POST", `/v1/org/concierge/routers/${encodeURIComponent(params.slug)}/rest`, {
      body: { form, options: params.guest.timeZone ? { timeZone: params.guest.timeZone } : {}, interval: params.interval },
    });
    return {
      routeId: String(r.routeId ?? r.schedulingData?.routeId),
      startTimes: r.schedulingData?.startTimes ?? [],
      expiresInMs: typeof r.schedulingData?.timeoutInMS === "number" ? r.schedulingData.timeoutInMS : undefined,
    };
  }

  async scheduleConcierge(routeId: string, startTime: string): Promise<ScheduledMeeting> {
    return this.scheduled(await this.request<any>("POST", `/v1/org/concierge/routing/${encodeURIComponent(routeId)}/schedule-simple`, { body: { startTime } }));
  }

  private scheduled(r: any): ScheduledMeeting {
    if (!r || typeof r.meetingId !== "string" || typeof r.startTime !== "string") {
      throw new ProviderRequestError("PROVIDER_ERROR", "The calendar provider confirmed a booking without a meeting ID.", { status: 200 });
    }
    return {
      meetingId: r.meetingId,
      workspaceId: str(r.workspaceId) ?? null,
      startTime: r.startTime,
      endTime: str(r.endTime) ?? r.startTime,
      hostEmail: str(r.host?.email) ?? "",
      meetingLink: locationText(r.location),
    };
  }

  // ---- meetings ------------------------------------------------------------------------------------------

  async getMeeting(meetingId: string): Promise<ProviderMeeting | null> {
    let r: any;
    try {
      r = await this.request<any>("GET", `/v1/org/meetings/get/${encodeURIComponent(meetingId)}`, { idempotent: true });
    } catch (error) {
      if (isProviderStatus(error, 404)) return null;
      throw error;
    }
    const m = r?.data ?? r;
    const scheduled = (m?.activities ?? []).find((a: any) => a?.type === "ScheduledAt");
    const canceled = (m?.activities ?? []).find((a: any) => a?.type === "Canceled");
    const startTime = str(scheduled?.startTime) ?? str(m?.startTime);
    if (!m?.id || !startTime) throw new ProviderRequestError("PROVIDER_ERROR", "The calendar provider sent a meeting without a start time.", { status: 200 });
    return {
      id: String(m.id),
      status: meetingStatus(m.meetingStatus),
      startTime,
      endTime: str(scheduled?.endTime) ?? str(m?.endTime) ?? null,
      hostEmail: str(m.host?.email) ?? null,
      meetingLink: locationText(m.location) || null,
      workspaceId: str(m.workspaceId) ?? null,
      cancelledAt: str(canceled?.at) ?? null,
    };
  }

  /** Cancels with Cal.com's cancel body; resolves `alreadyCancelled` when the provider says it was cancelled before. */
  async cancelMeeting(meetingId: string, body: { cancellationReason?: string; cancelSubsequentBookings?: boolean }): Promise<{ alreadyCancelled: boolean }> {
    const r = await this.request<{ type?: string; reason?: string }>("POST", `/v1/org/meetings/cancel/${encodeURIComponent(meetingId)}`, { body });
    if (r.type === "Success") return { alreadyCancelled: false };
    if (r.type === "Failure" && r.reason === "AlreadyCanceled") return { alreadyCancelled: true };
    throw new ProviderRequestError("PROVIDER_ERROR", "The calendar provider did not confirm the cancellation.", { status: 200, errorCode: r.reason ?? null });
  }

  async listAttendees(meetingId: string): Promise<ProviderAttendee[]> {
    const r = await this.request<{ data?: Array<Record<string, unknown>> }>("GET", `/v1/org/meetings/${encodeURIComponent(meetingId)}/attendees`, { idempotent: true });
    return (r.data ?? []).map((a) => this.attendee(a));
  }

  async addAttendee(meetingId: string, attendee: NewAttendee): Promise<ProviderAttendee> {
    const r = await this.request<{ data?: Record<string, unknown> }>("POST", `/v1/org/meetings/${encodeURIComponent(meetingId)}/attendees`, { body: attendee });
    return this.attendee(r.data ?? {});
  }

  private attendee(a: Record<string, unknown>): ProviderAttendee {
    const out: ProviderAttendee = { email: String(a.email ?? "") };
    if (str(a.name)) out.name = str(a.name);
    if (str(a.timeZone)) out.timeZone = str(a.timeZone);
    if (str(a.phoneNumber)) out.phoneNumber = str(a.phoneNumber);
    if (str(a.language)) out.language = str(a.language);
    return out;
  }
}

export function createChiliPiperClient(options: ChiliPiperClientOptions): ChiliPiperClient {
  return new ChiliPiperClient(options);
}
