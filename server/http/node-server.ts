import { randomUUID } from "node:crypto";
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { Readable } from "node:stream";
import next from "next";
import { getDb } from "@/db";
import { appBaseUrl } from "@/server/config/settings";
import { ERROR_TABLE, INTERNAL_ERROR_MESSAGE, type AppErrorCode } from "@/server/errors";
import { getLogger, runWithRequestContext, type RequestContext } from "@/server/observability/logger";
import { recordHttpRequest } from "@/server/observability/metrics";
import { cpuStageOfRequest, enableStageCpuAccounting, inCpuStage } from "@/server/observability/stage-cpu";
import { getConfig } from "@/server/config/env";
import { isShuttingDown } from "@/server/runtime/lifecycle";
import { checkReadiness, readinessSql } from "@/server/runtime/readiness";
import { serveLocalRecording } from "@/server/storage/serve-local-recording";
import { getTwilioRealtimeEngine, getVoiceEngine } from "@/server/voice";
import { readUpgradeActor } from "@/server/auth/session-cookie";
import { getListenHub } from "@/server/voice/listen";
import { createListenSocketHandler } from "@/server/voice/listen/listen-socket";
import { getTestCallServer } from "@/server/voice/test-call/test-call-server";
import { TWILIO_MEDIA_PATH } from "@/server/voice/twilio-realtime/settings";
import { API_PREFIX, respondApiV1, type ApiRequest } from "./api-v1";
import { pinForwardedFor } from "./client-ip";
import { checkNextRequest, nextBodyLimitBytes, nextRefusalResponse, nextSurfaceOf } from "./next-edge";
import { handleOpsRequest, opsPathOf, type OpsHandlers } from "./ops-routes";
import { BodyTooLargeError } from "./request-body";
import { hasDotSegments, isValidHostHeader } from "./request-head";
import { routeTemplateOf } from "./route-template";
import { createUpgradeRouter, type UpgradeRoute } from "./upgrades";
import { serveVoiceEvent, VOICE_EVENTS_PATH } from "./voice-events-route";

const RECORDINGS_PREFIX = "/api/recordings/";

/** Methods any part of the app answers; TRACE, CONNECT and the WebDAV verbs Node's parser knows are 405 here. */
const SERVED_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/** An unread body up to this size is drained so the connection can be reused; a larger or unknown one closes it. */
const DRAIN_UNREAD_BODY_BYTES = 64 * 1024;
/**
 * After answering early, what the client is still sending is read and dropped for at most this long / this much.
 * 8 MB because a loopback or LAN socket buffers several MB before a busy client reads the answer (1 MB reset some
 * clients under load before they saw their 413); dropped bytes are never held.
 */
const LINGER_MS = 2_000;
const LINGER_BYTES = 8 * 1024 * 1024;

/**
 * The production HTTP server: `/api/v1/*` goes straight to the same fetch handler the Next.js route
 * (`app/api/v1/[...path]/route.ts`) uses, and so do provider events (`POST /api/voice/events`, several per call at
 * campaign rates); everything else goes to Next.js. Next's per-request routing costs several
 * times more than the whole API request on the hot read path (see bench/read-path.ts), so the public API skips it;
 * behaviour is identical either way (the route file stays for `next dev`-only setups and for tests).
 * Signed recording links are served here too: Next drops the Content-Length of streamed route responses, and
 * players need it (with Range) to seek.
 */
export async function startHttpServer(options: { port: number; dev: boolean; hostname?: string; listenHost?: string }) {
  // Next.js attaches its own `upgrade` listener to the server of the first request it handles, and its router ends
  // any upgrade whose path matches a route or page. It gets a stand-in server instead, which only ever sees the
  // upgrades our router passes on (not ours: they are under /ws/).
  const nextUpgrades = http.createServer();
  const app = next({ dev: options.dev, port: options.port, hostname: options.hostname ?? "localhost", httpServer: nextUpgrades });
  const handleNext = app.getRequestHandler();
  await app.prepare();

  if (getConfig().STAGE_CPU_ACCOUNTING) enableStageCpuAccounting();
  const server = createHttpServer({ handleNext: (req, res) => void handleNext(req, res) });
  server.keepAliveTimeout = 65_000;
  server.on("upgrade", createUpgradeRouter({ routes: appUpgradeRoutes, next: (request, socket, head) => void nextUpgrades.emit("upgrade", request, socket, head) }));
  // `listenHost` (settings.listenHost(): 127.0.0.1 in embedded mode unless HOST says otherwise); all interfaces when unset.
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.listenHost, () => {
      server.off("error", reject);
      resolve();
    });
  });
  return {
    server,
    /**
     * Stops accepting, lets requests in flight finish (at most `budgetMs`), then closes Next.js. Resolves false when
     * requests were still in flight when the time was up (they were cut).
     */
    close: async (budgetMs = 10_000) => {
      const finished = await closeGracefully(server, budgetMs);
      await app.close();
      return finished;
    },
  };
}

let listenSocket: ReturnType<typeof createListenSocketHandler> | null = null;

/** Supervisors listening to live calls (server/voice/listen): the session cookie of the console, checked before the upgrade. */
function listenRoute(): UpgradeRoute {
  listenSocket ??= createListenSocketHandler({
    getDb,
    hub: getListenHub,
    readActor: (request) => readUpgradeActor(getDb(), request),
    simulatedAudio: () => getVoiceEngine().kind !== "twilio-realtime",
  });
  return { path: listenSocket.path, handle: listenSocket.handle };
}

/** The app's WebSockets: browser test calls of agents, listening in on live calls, and Twilio Media Streams when VOICE_ENGINE=twilio-realtime. */
function appUpgradeRoutes(): UpgradeRoute[] {
  const testCalls = getTestCallServer({ getDb, now: () => new Date() });
  const routes: UpgradeRoute[] = [{ path: testCalls.path, handle: (request, socket, head) => testCalls.handleUpgrade(request, socket, head) }, listenRoute()];
  const voice = getTwilioRealtimeEngine();
  if (voice) routes.push({ path: TWILIO_MEDIA_PATH, handle: (request, socket, head) => void voice.handleUpgrade(request, socket, head) });
  return routes;
}

/**
 * Stops listening and waits for the requests in flight: idle keep-alive connections are closed at once and again
 * as requests finish (responses sent while shutting down say `Connection: close`); what is still open after
 * `budgetMs` is cut. Resolves true when everything finished in time.
 */
export async function closeGracefully(server: http.Server, budgetMs: number): Promise<boolean> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const sweep = setInterval(() => server.closeIdleConnections(), 100);
  let timer: NodeJS.Timeout | undefined;
  const finished = await Promise.race([
    closed.then(() => true),
    new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), budgetMs);
    }),
  ]);
  clearInterval(sweep);
  clearTimeout(timer);
  if (!finished) {
    server.closeAllConnections();
    await closed;
  }
  return finished;
}

/** `X-Request-Id` as a client or proxy sent it, when it is short and plain; otherwise one is generated. */
const REQUEST_ID = /^[A-Za-z0-9._:;=+/-]{1,128}$/;

export function requestIdOf(header: string | string[] | undefined): string {
  const given = Array.isArray(header) ? header[0] : header;
  return given && REQUEST_ID.test(given) ? given : randomUUID();
}

export type HttpServerOptions = {
  handleNext: (req: IncomingMessage, res: ServerResponse) => void;
  /** Readiness and metrics sources (tests pass their own); default: this process's database, runner and lifecycle. */
  ops?: Partial<OpsHandlers>;
};

function defaultOpsHandlers(): OpsHandlers {
  return {
    readiness: () => {
      const sql = readinessSql();
      if (!sql) return Promise.resolve({ ready: false, checks: { shutdown: isShuttingDown() ? "shutting down" : "ok", database: "not configured", migrations: "unknown", background: "unknown" } });
      return checkReadiness({ sql });
    },
    metricsDb: () => {
      try {
        return getDb();
      } catch {
        return null;
      }
    },
  };
}

const QUIET_ROUTES = new Set(["/healthz", "/readyz", "/metrics"]);

/**
 * One log line and one `http_request_duration_seconds` observation per request, when the response is done (or the
 * client went away): method, route template (never the raw path), status, duration, request ID, and the
 * organization and key prefix the API handler identified. Probes and scrapes are logged at debug level.
 */
function observeRequest(req: IncomingMessage, res: ServerResponse, context: RequestContext) {
  const started = process.hrtime.bigint();
  res.once("close", () => {
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const route = context.route ?? "{unmatched}";
    const status = res.writableFinished ? res.statusCode : 499;
    recordHttpRequest({ method: req.method ?? "GET", route, status, seconds });
    const line = {
      method: req.method,
      route,
      status,
      durationMs: Math.round(seconds * 10_000) / 10,
      reqId: context.reqId,
      ...(context.orgId ? { orgId: context.orgId } : {}),
      ...(context.keyPrefix ? { keyPrefix: context.keyPrefix } : {}),
    };
    const log = getLogger("http");
    if (status >= 500) log.error(line, "request");
    else if (QUIET_ROUTES.has(route)) log.debug(line, "request");
    else log.info(line, "request");
  });
}

/**
 * The request handling of the production server without Next.js's preparation (tests start it with a stand-in for
 * Next). Every response carries `X-Request-Id` (the client's, when plain and short, or a generated one), and every
 * request is logged and measured once (observeRequest). The operator endpoints (`/healthz`, `/readyz`, `/metrics`)
 * come first. Before any other handler runs, the request line and Host are checked (a malformed one is a 4xx
 * `{error, message}`, never a 500 or a redirect built from it), and `Expect: 100-continue` is only answered once a
 * handler reads the body, so a request refused from its headers is never uploaded at all.
 */
export function createHttpServer(options: HttpServerOptions): http.Server {
  const ops: OpsHandlers = { ...defaultOpsHandlers(), ...options.ops };
  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    const context: RequestContext = { reqId: requestIdOf(req.headers["x-request-id"]) };
    res.setHeader("x-request-id", context.reqId);
    // Draining: clients are told to open their next connection elsewhere.
    if (isShuttingDown()) res.setHeader("connection", "close");
    observeRequest(req, res, context);
    inCpuStage(cpuStageOfRequest(req.url ?? ""), () => runWithRequestContext(context, route, req, res, context));
  };
  const route = (req: IncomingMessage, res: ServerResponse, context: RequestContext) => {
    if (req.url === "*" && req.method === "OPTIONS") {
      context.route = "*";
      res.writeHead(204, { Allow: [...SERVED_METHODS].join(", ") }).end();
      return;
    }
    const refused = checkRequestHead(req);
    if (refused) {
      context.route = "{refused}";
      sendError(req, res, refused);
      return;
    }
    const url = req.url!;
    const opsPath = opsPathOf(url);
    if (opsPath) {
      context.route = opsPath;
      if (expectsContinue(req)) res.writeContinue();
      handleOpsRequest(req, res, opsPath, ops).catch((error: unknown) => {
        getLogger("http").error({ err: error }, "operator endpoint failed");
        if (!res.headersSent) res.statusCode = 500;
        res.end();
      });
      return;
    }
    if (url === API_PREFIX || url.startsWith(`${API_PREFIX}/`) || url.startsWith(`${API_PREFIX}?`)) {
      // handleApiV1 names the route template (and the organization and key prefix once the key is verified).
      context.route = `${API_PREFIX}/{unmatched}`;
      void serveApiV1(req, res);
      return;
    }
    if (url.startsWith(RECORDINGS_PREFIX)) {
      context.route = routeTemplateOf(url);
      void serveFetch(req, res, 0, (request) => serveLocalRecording(request));
      return;
    }
    context.route = routeTemplateOf(url.split("?")[0]!);
    // Next.js handlers (sign-in throttling, the console's rate limits) only see headers: give them the resolved client address.
    pinForwardedFor(req);
    const nextRefused = checkNextRequest({ method: req.method ?? "GET", target: url, header: (name) => headerOf(req, name) });
    if (nextRefused?.notFoundPage) {
      // The console's 404 page, rendered by Next.js for a path that cannot be a page.
      req.url = NOT_FOUND_PAGE;
      closeIfBodyUnread(req, res);
      options.handleNext(req, res);
      return;
    }
    if (nextRefused) {
      const answer = nextRefusalResponse(nextSurfaceOf(url.split("?")[0]!), nextRefused);
      res.statusCode = answer.status;
      for (const [key, value] of Object.entries(answer.headers)) res.setHeader(key, value);
      res.setHeader("content-length", Buffer.byteLength(answer.body));
      closeIfBodyUnread(req, res);
      res.end(req.method === "HEAD" ? undefined : answer.body);
      return;
    }
    if (expectsContinue(req)) res.writeContinue();
    // Provider events skip Next's routing (after the same edge checks as Next's routes, body limit included).
    if (req.method === "POST" && url.split("?")[0] === VOICE_EVENTS_PATH) {
      void serveFetch(req, res, nextBodyLimitBytes("other"), serveVoiceEvent);
      return;
    }
    options.handleNext(req, res);
  };
  const server = http.createServer(onRequest);
  server.on("checkContinue", onRequest);
  server.on("clientError", answerClientError);
  // CONNECT never reaches "request"; without a listener Node drops the socket without a word.
  server.on("connect", (_req: IncomingMessage, socket: Duplex) => writeRawError(socket, "METHOD_NOT_ALLOWED", "Method CONNECT is not allowed."));
  return server;
}

type Refusal = { code: AppErrorCode; message: string; headers?: Record<string, string> };

/**
 * The request line and Host, for every path. The absolute form (`GET http://host/path`) is reduced to its path:
 * the app's own URLs come from the configured base URL, so no host a client names ends up in a redirect.
 */
function checkRequestHead(req: IncomingMessage): Refusal | null {
  const method = req.method ?? "";
  if (!SERVED_METHODS.has(method)) {
    return { code: "METHOD_NOT_ALLOWED", message: `Method ${method} is not allowed.`, headers: { Allow: [...SERVED_METHODS].join(", ") } };
  }
  const host = req.headers.host;
  if (host !== undefined && !isValidHostHeader(host)) return { code: "INVALID_REQUEST", message: "The Host header is not a valid host[:port]." };
  let target = req.url ?? "";
  const absolute = /^https?:\/\/[^/?#]*/i.exec(target);
  if (absolute) {
    target = target.slice(absolute[0].length) || "/";
    if (!target.startsWith("/")) target = `/${target}`;
    req.url = target;
  }
  if (!target.startsWith("/")) {
    return { code: "INVALID_REQUEST", message: "The request target must be a path (origin form)." };
  }
  if (hasDotSegments(target)) return { code: "INVALID_REQUEST", message: "The request path must not contain '.' or '..' segments." };
  return null;
}

function sendError(req: IncomingMessage, res: ServerResponse, refusal: Refusal) {
  const body = JSON.stringify({ error: refusal.code, message: refusal.message });
  res.statusCode = ERROR_TABLE[refusal.code].status;
  for (const [key, value] of Object.entries(refusal.headers ?? {})) res.setHeader(key, value);
  res.setHeader("content-type", "application/json");
  res.setHeader("content-length", Buffer.byteLength(body));
  closeIfBodyUnread(req, res);
  res.end(req.method === "HEAD" ? undefined : body);
}

/** What Node's parser refuses before a request exists (malformed request line or headers, unknown method). */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex) {
  if (error.code === "ECONNRESET" || error.code === "ERR_HTTP_REQUEST_TIMEOUT" || !socket.writable) {
    socket.destroy();
    return;
  }
  if (error.code === "HPE_INVALID_METHOD") writeRawError(socket, "METHOD_NOT_ALLOWED", "Unknown request method.");
  else writeRawError(socket, "INVALID_REQUEST", error.code === "HPE_HEADER_OVERFLOW" ? "The request headers are too large." : "Malformed HTTP request.");
}

function writeRawError(socket: Duplex, code: AppErrorCode, message: string) {
  const body = JSON.stringify({ error: code, message });
  const status = ERROR_TABLE[code].status;
  const reqId = randomUUID();
  getLogger("http").info({ route: "{malformed}", status, reqId }, "request refused before parsing");
  socket.end(
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nx-request-id: ${reqId}\r\nconnection: close\r\n\r\n${body}`,
  );
}

/**
 * A response sent before the body was read (refused from the headers, or over the limit while reading) ends the
 * connection after it instead of reading the rest, which Node would otherwise do to keep the connection alive.
 * The close lingers: a plain close with unread bytes pending makes the kernel reset the connection, which can destroy
 * the answer before the client reads it — so the answer is followed by FIN, and what the client still sends is
 * dropped for a moment (bounded by LINGER_MS and LINGER_BYTES) before the socket is destroyed. Memory stays flat
 * either way. A small declared body is drained instead (Node's default), so keep-alive survives e.g. a 401.
 * No `Connection: close` header: Node would then destroy the socket right after the answer, without lingering.
 */
function closeIfBodyUnread(req: IncomingMessage, res: ServerResponse) {
  if (req.complete) return;
  const chunked = req.headers["transfer-encoding"] !== undefined;
  const length = Number(req.headers["content-length"] ?? 0);
  if (!chunked && length === 0) return;
  if (!chunked && length <= DRAIN_UNREAD_BODY_BYTES && !req.readableDidRead) return;
  res.once("finish", () => {
    const socket = req.socket;
    const destroy = () => socket.destroy();
    const timer = setTimeout(destroy, LINGER_MS);
    timer.unref();
    socket.once("close", () => clearTimeout(timer));
    let dropped = 0;
    req.on("data", (chunk: Buffer) => {
      dropped += chunk.byteLength;
      if (dropped > LINGER_BYTES) destroy();
    });
    req.once("end", destroy);
    req.resume();
    socket.end();
  });
}

/** The route Next.js builds from app/not-found.tsx: it answers 404 with the console's not-found page. */
const NOT_FOUND_PAGE = "/_not-found";

function headerOf(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(", ") : value;
}

function expectsContinue(req: IncomingMessage): boolean {
  return (req.headers.expect ?? "").toLowerCase() === "100-continue";
}

/**
 * `/api/v1` on Node's own request and response: no fetch Request or Response is built on the way (they cost more
 * than the rest of a cached read, see bench/read-path.ts). The handler reads the headers as Node parsed them and
 * the body only when it asks for it, within the route's limit; the answer is written with its Content-Length.
 */
async function serveApiV1(req: IncomingMessage, res: ServerResponse) {
  try {
    const answer = await respondApiV1(nodeApiRequest(req, res), { db: getDb(), socketAddress: req.socket.remoteAddress });
    res.statusCode = answer.status;
    for (const key in answer.headers) res.setHeader(key, answer.headers[key]!);
    closeIfBodyUnread(req, res);
    if (answer.body === null || req.method === "HEAD") {
      res.end();
      return;
    }
    res.setHeader("content-length", Buffer.byteLength(answer.body));
    res.end(answer.body);
  } catch (error) {
    answerUnexpectedError(req, res, error);
  }
}

function answerUnexpectedError(req: IncomingMessage, res: ServerResponse, error: unknown) {
  getLogger("http").error({ err: error }, "unexpected error");
  if (!res.headersSent) {
    res.statusCode = 500;
    res.setHeader("content-type", "application/json");
    closeIfBodyUnread(req, res);
  }
  res.end(JSON.stringify({ error: "INTERNAL_SERVER_ERROR", message: INTERNAL_ERROR_MESSAGE }));
}

/** The API handler's view of a Node request; the target is the path as received (checkRequestHead reduced an absolute form). */
function nodeApiRequest(req: IncomingMessage, res: ServerResponse): ApiRequest {
  return {
    method: req.method ?? "GET",
    target: req.url ?? "/",
    header: (name) => {
      const value = req.headers[name];
      if (value === undefined) return null;
      return Array.isArray(value) ? value.join(", ") : value;
    },
    readBody: (limitBytes) => (req.method === "GET" || req.method === "HEAD" ? Promise.resolve(null) : readNodeBody(req, res, limitBytes)),
  };
}

/**
 * The body's bytes, read only now (100 Continue is sent now, not before) and never past `limitBytes`: the reading
 * stops there with BodyTooLargeError and closeIfBodyUnread deals with the rest.
 */
function readNodeBody(req: IncomingMessage, res: ServerResponse, limitBytes: number): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    if (expectsContinue(req)) res.writeContinue();
    const chunks: Buffer[] = [];
    let received = 0;
    let settled = false;
    const settle = (error: Error | null) => {
      if (settled) return;
      settled = true;
      req.off("data", onData);
      if (error) {
        req.pause();
        reject(error);
      } else resolve(Buffer.concat(chunks, received));
    };
    const onData = (chunk: Buffer) => {
      received += chunk.byteLength;
      if (received > limitBytes) settle(new BodyTooLargeError(limitBytes));
      else chunks.push(chunk);
    };
    req.on("data", onData);
    req.once("end", () => settle(null));
    req.once("error", (error) => settle(error));
    req.once("aborted", () => settle(new Error("The client aborted the request.")));
  });
}

/** Runs a fetch-style handler `(Request) => Response` on a Node request, streaming the body with its headers as given. */
async function serveFetch(req: IncomingMessage, res: ServerResponse, maxBodyBytes: number, handle: (request: Request) => Promise<Response>) {
  try {
    const response = await handle(toFetchRequest(req, res, maxBodyBytes));
    res.statusCode = response.status;
    response.headers.forEach((value, key) => res.setHeader(key, value));
    closeIfBodyUnread(req, res);
    if (!response.body || req.method === "HEAD") {
      res.end();
      return;
    }
    if (response.headers.has("content-length")) {
      Readable.fromWeb(response.body as Parameters<typeof Readable.fromWeb>[0]).pipe(res);
      return;
    }
    const body = Buffer.from(await response.arrayBuffer());
    res.setHeader("content-length", body.length);
    res.end(body);
  } catch (error) {
    answerUnexpectedError(req, res, error);
  }
}

/**
 * The fetch Request for a Node request. Its URL is built on the configured base URL, not on the Host header
 * (which a client chooses freely). Its body is read from the socket only as the handler pulls it, never past
 * `maxBodyBytes` (the stream errors with BodyTooLargeError instead), and cancelling it leaves the socket to
 * closeIfBodyUnread rather than destroying it before the answer is written.
 */
function toFetchRequest(req: IncomingMessage, res: ServerResponse, maxBodyBytes: number): Request {
  const url = new URL(req.url ?? "/", appBaseUrl());
  const headers = new Headers();
  for (const [key, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) value.forEach((v) => headers.append(key, v));
    else if (value !== undefined) headers.set(key, value);
  }
  const method = req.method ?? "GET";
  const hasBody = method !== "GET" && method !== "HEAD";
  return new Request(url, {
    method,
    headers,
    body: hasBody ? nodeBodyStream(req, res, maxBodyBytes) : undefined,
    // Node's fetch needs this for streamed request bodies.
    ...(hasBody ? { duplex: "half" } : {}),
  } as RequestInit);
}

function nodeBodyStream(req: IncomingMessage, res: ServerResponse, maxBodyBytes: number): ReadableStream<Uint8Array> {
  let started = false;
  let settled = false;
  let received = 0;
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (!started) {
          started = true;
          if (expectsContinue(req)) res.writeContinue();
          req.on("data", (chunk: Buffer) => {
            if (settled) return;
            received += chunk.byteLength;
            if (received > maxBodyBytes) {
              settled = true;
              req.pause();
              controller.error(new BodyTooLargeError(maxBodyBytes));
              return;
            }
            controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
            if ((controller.desiredSize ?? 0) <= 0) req.pause();
          });
          req.once("end", () => {
            if (settled) return;
            settled = true;
            controller.close();
          });
          req.once("error", (error) => {
            if (settled) return;
            settled = true;
            controller.error(error);
          });
          req.once("aborted", () => {
            if (settled) return;
            settled = true;
            controller.error(new Error("The client aborted the request."));
          });
        }
        req.resume();
      },
      cancel() {
        settled = true;
        req.pause();
      },
    },
    // Nothing is read ahead: the socket is only read when the handler asks (and 100 Continue only sent then).
    { highWaterMark: 0 },
  );
}
