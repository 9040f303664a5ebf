import { randomBytes, timingSafeEqual } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import path from "node:path";
import { SIM_DEFAULT_API_KEY, type SimTenant } from "./fixtures";
import { edgeRoutes } from "./routes";
import { SimError } from "./sim-error";
import { SimulatorState } from "./state";
import type { SimMeeting, SimSnapshot } from "./types";
import { getLogger } from "@/server/observability/logger";

/** The Edge API lives under this prefix (production: https://fire.chilipiper.com/api/fire-edge). */
export const EDGE_PREFIX = "/api/fire-edge";
/** Test and demo controls; not part of the Edge API; loopback only, and only with the simulator's control token. */
export const CONTROL_PREFIX = "/__simulator";
/**
 * The header every control request carries: the simulator's per-process control token. Without it, anything on this
 * machine that can be made to send a request — a webhook endpoint on loopback in embedded mode — could flip the
 * simulator's switches or mint API keys.
 */
export const CONTROL_TOKEN_HEADER = "x-simulator-token";

export type FailureMode = "status" | "timeout" | "reset";
export type FailNextOptions = {
  /** HTTP status to answer with (mode `status`); default 503. */
  status?: number;
  /** How many matching requests fail; default 1. */
  count?: number;
  /** Only requests whose Edge path (after /api/fire-edge) contains this string, or matches this pattern. */
  path?: string | RegExp;
  /** `timeout`: never answer (the client's timeout fires); `reset`: drop the connection. */
  mode?: FailureMode;
};

export type StartChiliPiperSimulatorOptions = {
  port?: number;
  host?: string;
  tenant?: SimTenant;
  conciergeRouteTtlMs?: number;
  sessionTtlMs?: number;
  /** Embedded mode: load the state from this JSON file at start and write it back after each change. */
  stateFile?: string;
  /** Do not keep the process alive for the simulator alone (a seed script may exit while it runs). */
  unref?: boolean;
  /** Required in CONTROL_TOKEN_HEADER on `/__simulator/*`; default: 32 random bytes, hex. */
  controlToken?: string;
};

export type RequestLogEntry = { method: string; path: string; status: number };

export type ChiliPiperSimulator = {
  /** Base URL of the Edge API (`…/api/fire-edge`), what the adapter's `baseUrl` takes. */
  url: string;
  /** Origin (`http://127.0.0.1:PORT`). */
  origin: string;
  port: number;
  /** The default tenant's full-access key. */
  defaultApiKey: string;
  /** What `/__simulator/*` requests must send in CONTROL_TOKEN_HEADER. */
  controlToken: string;
  state: SimulatorState;
  /** Method, path and status of the Edge requests served, the last 5,000 (never headers: keys stay out of it). */
  requests: RequestLogEntry[];
  createApiKey(permissions: string[] | "full-access"): string;
  failNext(options?: FailNextOptions): void;
  /** While down, every Edge request answers 503. */
  setDown(down: boolean): void;
  /** Moves the simulator's clock (route-ID expiry, "meeting started") forward. */
  advanceTime(ms: number): void;
  addCrmContact(email: string, ownerUserId?: string): void;
  renameConciergeRouter(routerId: string, name: string): { slug: string };
  getMeeting(meetingId: string): SimMeeting | undefined;
  stop(): Promise<void>;
};

function sendJson(res: ServerResponse, status: number, body: unknown) {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    "cache-control": "no-cache, no-store, max-age=0, must-revalidate",
    "x-robots-tag": "noindex",
    pragma: "no-cache",
    expires: "0",
  });
  res.end(text);
}

function sendError(res: ServerResponse, error: SimError) {
  if (error.plain) {
    res.writeHead(error.status, { "content-type": "text/plain" });
    res.end(error.message);
    return;
  }
  sendJson(res, error.status, { errorCode: error.errorCode, errorMessage: error.message, arguments: error.args });
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

function loadSnapshot(file: string): SimSnapshot | null {
  if (!existsSync(file)) return null;
  try {
    const parsed = JSON.parse(readFileSync(file, "utf8")) as SimSnapshot;
    return parsed.version === 1 ? parsed : null;
  } catch {
    return null;
  }
}

/**
 * A local HTTP stand-in for the Chili Piper Edge API subset we use (DESIGN §8): same paths, bodies, permissions
 * (`Authorization: Bearer <key>`), `{errorCode, errorMessage}` errors; its own in-memory state; single-use,
 * expiring concierge route IDs; and switches to fail on demand. Binds to loopback only.
 */
export async function startChiliPiperSimulator(options: StartChiliPiperSimulatorOptions = {}): Promise<ChiliPiperSimulator> {
  const state = new SimulatorState({
    tenant: options.tenant,
    conciergeRouteTtlMs: options.conciergeRouteTtlMs,
    sessionTtlMs: options.sessionTtlMs,
  });
  if (options.stateFile) {
    const snapshot = loadSnapshot(options.stateFile);
    if (snapshot) state.restore(snapshot);
    const file = options.stateFile;
    mkdirSync(path.dirname(file), { recursive: true });
    state.onChange = () => {
      const tmp = `${file}.${process.pid}.tmp`;
      writeFileSync(tmp, JSON.stringify(state.snapshot()), { mode: 0o600 });
      renameSync(tmp, file);
    };
    state.onChange();
  }
  const table = edgeRoutes(state);
  const failures: Array<Required<Pick<FailNextOptions, "status" | "mode">> & { remaining: number; path?: string | RegExp }> = [];
  let down = false;
  const requests: RequestLogEntry[] = [];
  const sockets = new Set<Socket>();
  const hanging = new Set<ServerResponse>();

  const controlToken = options.controlToken ?? randomBytes(32).toString("hex");
  const expectedToken = Buffer.from(controlToken);
  const hasControlToken = (req: IncomingMessage) => {
    const sent = Buffer.from(String(req.headers[CONTROL_TOKEN_HEADER] ?? ""));
    return sent.length === expectedToken.length && timingSafeEqual(sent, expectedToken);
  };

  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://simulator");
    const method = (req.method ?? "GET").toUpperCase();
    try {
      if (url.pathname.startsWith(CONTROL_PREFIX)) {
        // Refused before the body is read: nothing changes.
        if (!hasControlToken(req)) {
          throw new SimError(401, "Unauthorized", `Simulator controls need the simulator's control token in ${CONTROL_TOKEN_HEADER}.`);
        }
        await handleControl(url.pathname.slice(CONTROL_PREFIX.length), method, await readBody(req), res);
        return;
      }
      if (!url.pathname.startsWith(EDGE_PREFIX)) throw new SimError(404, "NotFound", "Not found");
      const edgePath = url.pathname.slice(EDGE_PREFIX.length);
      res.on("finish", () => {
        requests.push({ method, path: edgePath, status: res.statusCode });
        if (requests.length > 5_000) requests.splice(0, requests.length - 5_000);
      });

      const failure = failures.find((f) => f.remaining > 0 && (!f.path || (typeof f.path === "string" ? edgePath.includes(f.path) : f.path.test(edgePath))));
      if (failure) {
        failure.remaining -= 1;
        if (failure.mode === "reset") {
          req.socket.destroy();
          return;
        }
        if (failure.mode === "timeout") {
          hanging.add(res);
          res.on("close", () => hanging.delete(res));
          return;
        }
        throw new SimError(failure.status, failure.status === 503 ? "ServiceUnavailable" : "InternalError", "Simulated provider failure");
      }
      if (down) throw new SimError(503, "ServiceUnavailable", "The service is temporarily unavailable");

      const authorization = req.headers.authorization ?? "";
      const match = /^Bearer (\S+)$/.exec(authorization);
      if (!match) throw new SimError(401, "Unauthorized", "Missing or malformed Authorization header: use 'Authorization: Bearer <api-key>'");
      const permissions = state.permissionsOf(match[1]!);
      if (!permissions) throw new SimError(401, "Unauthorized", "Invalid API key");

      const candidates = table.filter((r) => r.pattern.test(edgePath));
      if (candidates.length === 0) throw new SimError(404, "NotFound", `No endpoint ${edgePath}`);
      const route = candidates.find((r) => r.method === method);
      if (!route) throw new SimError(405, "MethodNotAllowed", `${method} is not supported on ${edgePath}`);
      if (!permissions.includes(route.permission)) {
        throw new SimError(403, "Forbidden", `The API key lacks the ${route.permission} permission`, { permission: route.permission });
      }
      const raw = await readBody(req);
      let body: Record<string, unknown> = {};
      if (raw.trim()) {
        try {
          const parsed: unknown = JSON.parse(raw);
          body = parsed && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
        } catch {
          throw new SimError(400, "InvalidBody", "Invalid value for: body", {}, true);
        }
      }
      const params = route.pattern.exec(edgePath)!.slice(1).map((p) => decodeURIComponent(p));
      const result = route.handle({ params, body, query: url.searchParams });
      sendJson(res, result.status ?? 200, result.body);
    } catch (error) {
      if (error instanceof SimError) sendError(res, error);
      else {
        getLogger("chili-piper-simulator").error({ err: error }, "handler error");
        sendJson(res, 500, { errorCode: "InternalError", errorMessage: "Internal error" });
      }
    }
  });
  server.on("connection", (socket) => {
    if (options.unref) socket.unref();
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });

  const api: Omit<ChiliPiperSimulator, "url" | "origin" | "port" | "stop"> = {
    defaultApiKey: SIM_DEFAULT_API_KEY,
    controlToken,
    state,
    requests,
    createApiKey: (permissions) => state.createApiKey(permissions),
    failNext: (opts = {}) => {
      failures.push({ status: opts.status ?? 503, mode: opts.mode ?? "status", remaining: opts.count ?? 1, path: opts.path });
    },
    setDown: (value) => {
      down = value;
    },
    advanceTime: (ms) => {
      state.clockOffsetMs += ms;
      state.onChange();
    },
    addCrmContact: (email, ownerUserId) => state.addCrmContact(email, ownerUserId),
    renameConciergeRouter: (routerId, name) => ({ slug: state.renameConciergeRouter(routerId, name).slug }),
    getMeeting: (meetingId) => state.meetings.get(meetingId),
  };

  async function handleControl(controlPath: string, method: string, raw: string, res: ServerResponse) {
    const body = raw.trim() ? (JSON.parse(raw) as Record<string, unknown>) : {};
    if (method === "GET" && controlPath === "/health") return sendJson(res, 200, { ok: true, simulator: "chili-piper" });
    if (method === "POST" && controlPath === "/api-keys") {
      const permissions = body.permissions === "full-access" || body.permissions === undefined ? "full-access" : (body.permissions as string[]);
      return sendJson(res, 201, { key: api.createApiKey(permissions) });
    }
    if (method === "POST" && controlPath === "/fail-next") {
      api.failNext({ status: body.status as number | undefined, count: body.count as number | undefined, path: body.path as string | undefined, mode: body.mode as FailureMode | undefined });
      return sendJson(res, 200, { ok: true });
    }
    if (method === "POST" && controlPath === "/down") {
      api.setDown(Boolean(body.down));
      return sendJson(res, 200, { down });
    }
    if (method === "POST" && controlPath === "/advance-time") {
      api.advanceTime(Number(body.ms ?? 0));
      return sendJson(res, 200, { now: new Date(state.now()).toISOString() });
    }
    if (method === "POST" && controlPath === "/crm-contacts") {
      api.addCrmContact(String(body.email), body.ownerUserId as string | undefined);
      return sendJson(res, 201, { ok: true });
    }
    return sendJson(res, 404, { errorCode: "NotFound", errorMessage: "Unknown simulator control" });
  }

  const host = options.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  if (options.unref) server.unref();
  const port = (server.address() as AddressInfo).port;
  const origin = `http://${host}:${port}`;
  return {
    ...api,
    url: `${origin}${EDGE_PREFIX}`,
    origin,
    port,
    stop: async () => {
      for (const res of hanging) res.destroy();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
