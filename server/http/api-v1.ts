import { createOpenApiNodeHttpHandler } from "trpc-to-openapi";
import type { Db } from "@/db";
import { appBaseUrl, trustedProxyHops } from "@/server/config/settings";
import { authenticate } from "../auth/authenticate";
import { AppError, appCodeForTrpcCode, appCodeOfError, ERROR_TABLE, INTERNAL_ERROR_MESSAGE, isAppErrorCode, type AppErrorCode } from "../errors";
import { currentRequestContext, getLogger } from "../observability/logger";
import { recordRateLimitRejection } from "../observability/metrics";
import { keyPrefix } from "../services/api-keys/api-key-crypto";
import { createContext, type Context } from "../trpc/context";
import type { Meta } from "../trpc/init";
import { getOpenApiDocument } from "../trpc/openapi";
import { appRouter, createCaller } from "../trpc/root";
import {
  API_KEY_POLICY,
  apiKeyRateLimitStore,
  clientAddressPolicy,
  clientAddressRateLimitStore,
  consumeRateLimit,
  rateLimitHeaders,
  type RateLimitStore,
} from "./rate-limit";
import { BodyTooLargeError, bodyLimitBytes, declaredContentLength, isJsonContentType, readBodyWithLimit } from "./request-body";
import { canonicalPath, clientAddress, isValidHostHeader } from "./request-head";

export const API_PREFIX = "/api/v1";

export type ApiV1Options = {
  db: Db;
  now?: () => Date;
  /** The TCP peer of the request (our Node server knows it; the Next route does not). */
  socketAddress?: string | null;
  /** Tests: other limiter stores and clock (epoch ms) than the process-wide ones. */
  rateLimits?: { keyStore?: RateLimitStore; addressStore?: RateLimitStore; nowMs?: () => number };
};

function errorResponse(code: AppErrorCode, message: string, headers: Record<string, string> = {}, extra: Record<string, unknown> = {}) {
  return Response.json({ error: code, message, ...extra }, { status: ERROR_TABLE[code].status, headers });
}

/** HEAD on these paths is a connectivity check of the key and the agent (spec: "The scheduling endpoints answer HEAD"). */
const SCHEDULING_PATH = /^\/agents\/([^/]+)\/schedule\/sequences?\/?$/;

/** Methods this API knows; anything else (TRACE, CONNECT, WebDAV verbs…) is 405 before routing. */
const KNOWN_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);
const BODY_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);
const ALLOW = "GET, HEAD, POST, DELETE";

/**
 * The `/api/v1` entry point: the trpc-to-openapi fetch handler wrapped so that every response under the prefix
 * keeps the spec's contract — `{error, message}` bodies with our status table (the library's own error body,
 * its 415/404/parse errors included, never leaks), empty optional bodies, and HEAD — behind the edge checks:
 * request line and Host, authentication of the key before any body is read, the rate limits (per key, or per
 * client address for requests without a valid key), and the body limit.
 */
export async function handleApiV1(req: Request, options: ApiV1Options): Promise<Response> {
  const method = req.method.toUpperCase();
  if (!KNOWN_METHODS.has(method)) {
    return errorResponse("METHOD_NOT_ALLOWED", `Method ${method.slice(0, 32)} is not allowed. This API uses ${ALLOW}.`, { Allow: ALLOW });
  }
  const host = req.headers.get("host");
  if (host !== null && !isValidHostHeader(host)) return errorResponse("INVALID_REQUEST", "The Host header is not a valid host[:port].");
  const url = new URL(req.url);
  if (url.pathname !== API_PREFIX && !url.pathname.startsWith(`${API_PREFIX}/`)) {
    return errorResponse("NOT_FOUND", "No such endpoint. See /api/v1/openapi.json.");
  }
  const path = canonicalPath(url.pathname.slice(API_PREFIX.length) || "/");
  if (path === null) return errorResponse("INVALID_REQUEST", "The request path is not valid percent-encoded UTF-8.");
  // The Node server's request log line and metrics name the route template, never the raw path.
  const requestContext = currentRequestContext();
  if (requestContext) requestContext.route = routeTemplateFor(method, path);

  let limitHeaders: Record<string, string> = {};
  try {
    const caller = await identifyCaller(req, options);
    if (requestContext && "keyId" in caller) {
      requestContext.orgId = caller.orgId;
      requestContext.keyPrefix = caller.keyPrefix;
    }
    const limits = options.rateLimits ?? {};
    const nowMs = limits.nowMs?.() ?? Date.now();
    // Keyed on the verified key's id, never the raw header: a made-up key counts against its sender's address.
    const decision =
      "keyId" in caller
        ? await consumeRateLimit(limits.keyStore ?? apiKeyRateLimitStore(), `key:${caller.keyId}`, API_KEY_POLICY, nowMs)
        : await consumeRateLimit(limits.addressStore ?? clientAddressRateLimitStore(), `address:${caller.address}`, clientAddressPolicy(), nowMs);
    limitHeaders = rateLimitHeaders(decision);
    if (!decision.allowed) {
      recordRateLimitRejection("keyId" in caller ? "key" : "address");
      const message =
        "keyId" in caller
          ? `More than ${API_KEY_POLICY.limit} requests per second for this API key. Back off and retry with jitter.`
          : `More than ${decision.policy.limit} requests per second without a valid API key from this address. Back off and retry with jitter.`;
      return errorResponse("RATE_LIMITED", message, limitHeaders);
    }

    let response: Response;
    if (path === "/openapi.json" && (method === "GET" || method === "HEAD")) response = openApiDocumentResponse(method);
    else if (method === "HEAD") response = await handleHead(req, { path, search: url.search, caller }, options);
    else response = await dispatch(req, { method, path, search: url.search, caller }, options);
    return withHeaders(response, limitHeaders);
  } catch (error) {
    getLogger("api").error({ err: error }, "unexpected error");
    return errorResponse("INTERNAL_SERVER_ERROR", INTERNAL_ERROR_MESSAGE, limitHeaders);
  }
}

/** The server in the document is the configured base URL, never the request's Host header. */
function openApiDocumentResponse(method: string): Response {
  const body = JSON.stringify(getOpenApiDocument(`${appBaseUrl().replace(/\/+$/, "")}${API_PREFIX}`));
  return new Response(method === "HEAD" ? null : body, { headers: { "content-type": "application/json" } });
}

type Caller = { keyId: string; orgId: string; keyPrefix: string } | { address: string; authError: AppError };

/**
 * The verified key (the same check the procedures make; verified keys are cached, so they do not pay twice), or
 * the client address that requests without a valid key are limited by.
 */
async function identifyCaller(req: Request, options: ApiV1Options): Promise<Caller> {
  try {
    const { actor, orgId } = await authenticate(createContext({ db: options.db, headers: req.headers, source: "rest", now: options.now }));
    // A REST context only ever authenticates by key; its visible prefix (never the key) goes to the request log.
    return { keyId: actor.type === "apiKey" ? actor.keyId : actor.userId, orgId, keyPrefix: keyPrefix(req.headers.get("x-api-key") ?? "") };
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    const address = clientAddress({
      socketAddress: options.socketAddress,
      forwardedFor: req.headers.get("x-forwarded-for"),
      trustedProxyHops: trustedProxyHops(),
    });
    return { address, authError: error };
  }
}

type OpenApiRoute = { method: string; template: string; pattern: RegExp };
let openApiRoutes: OpenApiRoute[] | undefined;

/** The REST routes as trpc-to-openapi matches them (normalized template, `{param}` = one segment, any case). */
function findRoute(method: string, path: string): OpenApiRoute | undefined {
  openApiRoutes ??= (Object.values(appRouter._def.procedures) as unknown as Array<{ _def: { meta?: Meta } }>).flatMap((procedure) => {
    const openapi = procedure._def.meta?.openapi;
    if (!openapi) return [];
    const template = `/${openapi.path.replace(/^\/|\/$/g, "")}`;
    const pattern = new RegExp(`^${template.replace(/\{(.+?)\}/g, "[^/]+")}$`, "i");
    return [{ method: openapi.method, template, pattern }];
  });
  const normalized = `/${path.replace(/^\/|\/$/g, "")}`;
  return openApiRoutes.find((route) => route.method === method && route.pattern.test(normalized));
}

/** `/api/v1/agents/{agentId}/outcomes` for logs and metrics; unknown routes share one label. */
function routeTemplateFor(method: string, path: string): string {
  if (path === "/openapi.json") return `${API_PREFIX}/openapi.json`;
  const route = findRoute(method === "HEAD" ? "GET" : method, path) ?? findRoute("POST", path) ?? findRoute("GET", path);
  return route ? `${API_PREFIX}${route.template}` : `${API_PREFIX}/{unmatched}`;
}

type DispatchTarget = { method: string; path: string; search: string; caller: Caller };

async function dispatch(req: Request, target: DispatchTarget, options: ApiV1Options): Promise<Response> {
  const { method, path, search, caller } = target;
  let headers = req.headers;
  let body: unknown = undefined;
  if (BODY_METHODS.has(method)) {
    // Nothing below reads a body it is not going to use: unknown routes and requests without a valid key are
    // answered from the headers alone (the Node server then closes the connection instead of draining it).
    const route = findRoute(method, path);
    if (!route) return errorResponse("NOT_FOUND", "No such endpoint. See /api/v1/openapi.json.");
    if ("authError" in caller) return errorResponse(caller.authError.code, caller.authError.message);
    const parsed = await readJsonBody(req, bodyLimitBytes(route.method, route.template));
    if (parsed instanceof Response) return parsed;
    body = parsed;
    headers = new Headers(req.headers);
    headers.set("content-type", "application/json");
  }
  const response = await invokeOpenApi(req, { relativeUrl: `${path}${search}`, headers, body }, () =>
    createContext({ db: options.db, headers: req.headers, source: "rest", now: options.now }),
  );
  if (response.status < 400) return response;
  return reshapeError(response);
}

/**
 * The body as a JSON object, or the error response: 413 over the limit (by Content-Length before reading, else
 * while reading), 415 for a present body that is not `application/json` or is content-encoded, 400 for bytes that
 * are not UTF-8 JSON or JSON that is not an object. No body at all is `{}` (optional bodies, e.g. meeting cancel).
 */
async function readJsonBody(req: Request, limitBytes: number): Promise<Record<string, unknown> | Response> {
  const tooLarge = () =>
    errorResponse("PAYLOAD_TOO_LARGE", `The request body is larger than this endpoint accepts (${limitBytes} bytes).`);
  const declared = declaredContentLength(req.headers);
  if (declared !== null && declared > limitBytes) return tooLarge();
  let bytes: Uint8Array | null;
  try {
    bytes = await readBodyWithLimit(req.body, limitBytes);
  } catch (error) {
    if (error instanceof BodyTooLargeError) return tooLarge();
    return errorResponse("INVALID_REQUEST_BODY", "The request body could not be read completely.");
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes ?? new Uint8Array());
  } catch {
    return errorResponse("INVALID_REQUEST_BODY", "The request body is not valid UTF-8.");
  }
  // No body at all is `{}`; 415 is only for a body that is present (DESIGN §4).
  if (text.trim() === "") return {};
  const encoding = req.headers.get("content-encoding")?.trim().toLowerCase();
  if (!isJsonContentType(req.headers.get("content-type")) || (encoding && encoding !== "identity")) {
    return errorResponse("UNSUPPORTED_MEDIA_TYPE", "Request bodies must be JSON: send Content-Type: application/json (optionally ; charset=utf-8), uncompressed.");
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return errorResponse("INVALID_REQUEST_BODY", "The request body is not valid JSON.");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return errorResponse("INVALID_REQUEST", "Invalid request: body: must be a JSON object.");
  }
  return value as Record<string, unknown>;
}

type OpenApiNodeHandler = ReturnType<typeof createOpenApiNodeHttpHandler>;
const contextFactories = new WeakMap<object, () => Context>();
let openApiHandler: OpenApiNodeHandler | undefined;

/**
 * trpc-to-openapi's node handler, built once: its fetch adapter builds a new one (procedure cache, and outside
 * production the whole OpenAPI document) on every request. The request it gets is the fetch Request seen through a
 * proxy that supplies the path below /api/v1, the parsed body and the effective headers; the response object collects
 * what the handler writes into a fetch Response.
 */
function getOpenApiHandler(): OpenApiNodeHandler {
  openApiHandler ??= createOpenApiNodeHttpHandler({
    router: appRouter,
    createContext: ({ req }: { req: object }) => contextFactories.get(req)!(),
    // responseMeta also runs on errors and its status would override theirs: only successes take ours.
    responseMeta: ({ ctx, errors }: { ctx?: Context; errors: unknown[] }) =>
      errors.length > 0 || !ctx ? {} : { status: ctx.resMeta.status, headers: ctx.resMeta.headers },
  } as unknown as Parameters<typeof createOpenApiNodeHttpHandler>[0]);
  return openApiHandler;
}

function invokeOpenApi(req: Request, overrides: { relativeUrl: string; headers: Headers; body: unknown }, makeContext: () => Context): Promise<Response> {
  const proxied = new Proxy(req, {
    get(target, property) {
      if (property === "url") return overrides.relativeUrl;
      if (property === "body") return overrides.body;
      if (property === "headers") return overrides.headers;
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  contextFactories.set(proxied, makeContext);
  return new Promise<Response>((resolve, reject) => {
    const responseHeaders = new Headers();
    let statusCode = 200;
    const res = {
      setHeader(key: string, value: string | string[]) {
        if (Array.isArray(value)) value.forEach((item) => responseHeaders.append(key, item));
        else responseHeaders.set(key, value);
      },
      get statusCode() {
        return statusCode;
      },
      set statusCode(code: number) {
        statusCode = code;
      },
      end(chunk?: string) {
        resolve(new Response(chunk ?? null, { status: statusCode, headers: responseHeaders }));
      },
    };
    getOpenApiHandler()(proxied as never, res as never).catch(reject);
  });
}

type LibraryErrorBody = { message?: string; code?: string; data?: { appCode?: string; message?: string; details?: Record<string, unknown> } };

async function reshapeError(response: Response): Promise<Response> {
  let body: LibraryErrorBody = {};
  try {
    body = (await response.json()) as LibraryErrorBody;
  } catch {
    body = {};
  }
  const appCode = isAppErrorCode(body.data?.appCode) ? body.data.appCode : appCodeForTrpcCode(body.code ?? "INTERNAL_SERVER_ERROR");
  let message = body.data?.message ?? body.message ?? "Request failed.";
  if (appCode === "NOT_FOUND" && !body.data?.details && message === "Not found") message = "No such endpoint. See /api/v1/openapi.json.";
  if (appCode === "INTERNAL_SERVER_ERROR") message = INTERNAL_ERROR_MESSAGE;
  const headers: Record<string, string> = {};
  const retryAfter = response.headers.get("retry-after");
  if (retryAfter) headers["Retry-After"] = retryAfter;
  const details = body.data?.details;
  // NO_VALID_CONTACTS carries `rejected` at the top level too (DESIGN §4), like a 202's body.
  const extra = details ? { ...(Array.isArray(details.rejected) ? { rejected: details.rejected } : {}), details } : {};
  return errorResponse(appCode, message, headers, extra);
}

async function handleHead(req: Request, target: Omit<DispatchTarget, "method">, options: ApiV1Options): Promise<Response> {
  const { path, search, caller } = target;
  const scheduling = SCHEDULING_PATH.exec(path);
  if (scheduling) {
    const ctx = createContext({ db: options.db, headers: req.headers, source: "rest", now: options.now });
    try {
      // The id as GET passes it to procedures: the segment of the canonical path (one decoding, see canonicalPath).
      await createCaller(ctx).agents.checkAccess({ agentId: scheduling[1]! });
      return new Response(null, { status: 200 });
    } catch (error) {
      return new Response(null, { status: ERROR_TABLE[appCodeOfError(error)].status });
    }
  }
  // Any other path: the GET of the same path, without its body (so unknown paths and bad keys are not 204).
  const get = await dispatch(new Request(req.url, { method: "GET", headers: req.headers }), { method: "GET", path, search, caller }, options);
  return new Response(null, { status: get.status, headers: get.headers });
}

function withHeaders(response: Response, headers: Record<string, string>): Response {
  if (Object.keys(headers).length === 0) return response;
  const merged = new Headers(response.headers);
  for (const [key, value] of Object.entries(headers)) merged.set(key, value);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers: merged });
}
