import { randomUUID } from "node:crypto";
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import next from "next";
import { getDb } from "@/db";
import { getLogger, runWithRequestContext, type RequestContext } from "@/server/observability/logger";
import { recordHttpRequest } from "@/server/observability/metrics";
import { cpuStageOfRequest, enableStageCpuAccounting, inCpuStage } from "@/server/observability/stage-cpu";
import { getConfig } from "@/server/config/env";
import { isShuttingDown } from "@/server/runtime/lifecycle";
import { checkReadiness, readinessSql } from "@/server/runtime/readiness";
import { serveLocalRecording } from "@/server/storage/serve-local-recording";
import { API_PREFIX } from "./api-v1";
import { appUpgradeRoutes } from "./app-upgrades";
import { pinForwardedFor } from "./client-ip";
import { checkNextRequest, nextBodyLimitBytes, nextRefusalResponse, nextSurfaceOf } from "./next-edge";
import { serveApiV1, serveFetch, serveVoiceEventOnNode } from "./node-fast-paths";
import { answerClientError, checkRequestHead, closeIfBodyUnread, expectsContinue, headerOf, sendError, SERVED_METHODS, writeRawError } from "./node-io";
import { handleOpsRequest, opsPathOf, type OpsHandlers } from "./ops-routes";
import { routeTemplateOf } from "./route-template";
import { createUpgradeRouter } from "./upgrades";
import { VOICE_EVENTS_PATH } from "./voice-events-route";

const RECORDINGS_PREFIX = "/api/recordings/";

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
      void serveVoiceEventOnNode(req, res, nextBodyLimitBytes("other"));
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

/** The route Next.js builds from app/not-found.tsx: it answers 404 with the console's not-found page. */
const NOT_FOUND_PAGE = "/_not-found";
