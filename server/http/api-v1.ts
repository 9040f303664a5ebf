import type { Db } from "@/db";
import { appBaseUrl, trustedProxyHops } from "@/server/config/settings";
import { authenticate, type AuthContext } from "../auth/authenticate";
import { AppError, appCodeForTrpcCode, appCodeOfError, ERROR_TABLE, INTERNAL_ERROR_MESSAGE, isAppErrorCode, type AppErrorCode } from "../errors";
import { currentRequestContext, getLogger } from "../observability/logger";
import { recordRateLimitRejection } from "../observability/metrics";
import { keyPrefix } from "../services/api-keys/api-key-crypto";
import { createContext, type Context } from "../trpc/context";
import { getOpenApiDocument } from "../trpc/openapi";
import { createCaller } from "../trpc/root";
import {
  API_KEY_POLICY,
  identityRateLimitStore,
  clientAddressPolicy,
  clientAddressRateLimitStore,
  consumeRateLimit,
  rateLimitHeaders,
  type RateLimitStore,
} from "./rate-limit";
import { BodyTooLargeError, bodyLimitBytes, declaredContentLength, isJsonContentType, readBodyWithLimit } from "./request-body";
import { canonicalPath, clientAddress, isValidHostHeader } from "./request-head";
import { callRestProcedure, findRestRoute, type RestErrorBody, type RestRoute } from "./rest-procedures";

export const API_PREFIX = "/api/v1";

export type ApiV1Options = {
  db: Db;
  now?: () => Date;
  /** The TCP peer of the request (our Node server knows it; the Next route does not). */
  socketAddress?: string | null;
  /** Tests: other limiter stores and clock (epoch ms) than the process-wide ones. */
  rateLimits?: { keyStore?: RateLimitStore; addressStore?: RateLimitStore; nowMs?: () => number };
};

/**
 * What the handler reads of a request, whichever server received it: a fetch Request (the Next route, tests) or
 * Node's IncomingMessage (the production server, without converting it to a fetch Request and back).
 */
export type ApiRequest = {
  method: string;
  /** The request target below the origin: path and query as received (`/api/v1/agents?limit=5`). */
  target: string;
  /** One header by its lower-case name (repeated headers joined by ", ", as fetch's Headers.get does); null when absent. */
  header: (name: string) => string | null;
  /** The body's bytes, never reading past `limitBytes` (BodyTooLargeError instead); null for a request without body. */
  readBody: (limitBytes: number) => Promise<Uint8Array | null>;
};

/** The answer: header names in lower case; `body` null for none. HEAD answers carry no body whatever `body` says. */
export type ApiResponse = { status: number; headers: Record<string, string>; body: string | null };

const JSON_HEADERS = { "content-type": "application/json" } as const;

function errorResponse(code: AppErrorCode, message: string, headers: Record<string, string> = {}, extra: Record<string, unknown> = {}): ApiResponse {
  return { status: ERROR_TABLE[code].status, headers: { ...JSON_HEADERS, ...lowerCaseKeys(headers) }, body: JSON.stringify({ error: code, message, ...extra }) };
}

function lowerCaseKeys(headers: Record<string, string>): Record<string, string> {
  const lowered: Record<string, string> = {};
  for (const key in headers) lowered[key.toLowerCase()] = headers[key]!;
  return lowered;
}

/** HEAD on these paths is a connectivity check of the key and the agent (spec: "The scheduling endpoints answer HEAD"). */
const SCHEDULING_PATH = /^\/agents\/([^/]+)\/schedule\/sequences?\/?$/;

/** Methods this API knows; anything else (TRACE, CONNECT, WebDAV verbs…) is 405 before routing. */
const KNOWN_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);
const BODY_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);
const ALLOW = "GET, HEAD, POST, DELETE";

/**
 * The `/api/v1` entry point for fetch Requests (the Next route file, tests, benches): see respondApiV1. The Node
 * server calls respondApiV1 on its own request object instead (server/http/node-server.ts).
 */
export async function handleApiV1(req: Request, options: ApiV1Options): Promise<Response> {
  const url = new URL(req.url);
  const answer = await respondApiV1(
    {
      method: req.method,
      target: `${url.pathname}${url.search}`,
      header: (name) => req.headers.get(name),
      readBody: (limitBytes) => readBodyWithLimit(req.body, limitBytes),
    },
    options,
  );
  return new Response(req.method.toUpperCase() === "HEAD" ? null : answer.body, { status: answer.status, headers: answer.headers });
}

/**
 * The `/api/v1` handler: the procedures routed as trpc-to-openapi routes them (server/http/rest-procedures.ts), with
 * every response under the prefix keeping the spec's contract — `{error, message}` bodies with our status table
 * (tRPC's error shape never leaks), empty optional bodies, and HEAD — behind the edge checks:
 * request line and Host, authentication of the key before any body is read, the rate limits (per key, or per
 * client address for requests without a valid key), and the body limit.
 */
export async function respondApiV1(req: ApiRequest, options: ApiV1Options): Promise<ApiResponse> {
  const method = req.method.toUpperCase();
  if (!KNOWN_METHODS.has(method)) {
    return errorResponse("METHOD_NOT_ALLOWED", `Method ${method.slice(0, 32)} is not allowed. This API uses ${ALLOW}.`, { Allow: ALLOW });
  }
  const host = req.header("host");
  if (host !== null && !isValidHostHeader(host)) return errorResponse("INVALID_REQUEST", "The Host header is not a valid host[:port].");
  const queryAt = req.target.indexOf("?");
  const pathname = queryAt < 0 ? req.target : req.target.slice(0, queryAt);
  const search = queryAt < 0 ? "" : req.target.slice(queryAt);
  if (pathname !== API_PREFIX && !pathname.startsWith(`${API_PREFIX}/`)) {
    return errorResponse("NOT_FOUND", "No such endpoint. See /api/v1/openapi.json.");
  }
  const path = canonicalPath(pathname.slice(API_PREFIX.length) || "/");
  if (path === null) return errorResponse("INVALID_REQUEST", "The request path is not valid percent-encoded UTF-8.");
  // The Node server's request log line and metrics name the route template, never the raw path.
  // HEAD runs the GET of its path (handleHead), so it is routed as GET.
  const route = findRestRoute(method === "HEAD" ? "GET" : method, path);
  const requestContext = currentRequestContext();
  if (requestContext) requestContext.route = routeLabel(route, path);

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
        ? await consumeRateLimit(limits.keyStore ?? identityRateLimitStore(), `key:${caller.keyId}`, API_KEY_POLICY, nowMs)
        : await consumeRateLimit(limits.addressStore ?? clientAddressRateLimitStore(), `address:${caller.address}`, clientAddressPolicy(), nowMs);
    limitHeaders = lowerCaseKeys(rateLimitHeaders(decision));
    if (!decision.allowed) {
      recordRateLimitRejection("keyId" in caller ? "key" : "address");
      const message =
        "keyId" in caller
          ? `More than ${API_KEY_POLICY.limit} requests per second for this API key. Back off and retry with jitter.`
          : `More than ${decision.policy.limit} requests per second without a valid API key from this address. Back off and retry with jitter.`;
      return errorResponse("RATE_LIMITED", message, limitHeaders);
    }

    let response: ApiResponse;
    if (path === "/openapi.json" && (method === "GET" || method === "HEAD")) response = openApiDocumentResponse();
    else if (method === "HEAD") response = await handleHead(req, { route, path, search, caller }, options);
    else response = await dispatch(req, { method, route, path, search, caller }, options);
    Object.assign(response.headers, limitHeaders);
    return response;
  } catch (error) {
    getLogger("api").error({ err: error }, "unexpected error");
    return errorResponse("INTERNAL_SERVER_ERROR", INTERNAL_ERROR_MESSAGE, limitHeaders);
  }
}

/** The server in the document is the configured base URL, never the request's Host header. */
function openApiDocumentResponse(): ApiResponse {
  const body = JSON.stringify(getOpenApiDocument(`${appBaseUrl().replace(/\/+$/, "")}${API_PREFIX}`));
  return { status: 200, headers: { ...JSON_HEADERS }, body };
}

type Caller = { keyId: string; orgId: string; keyPrefix: string; auth: AuthContext } | { address: string; authError: AppError };

/**
 * The verified key (the same check the procedures make; verified keys are cached, so they do not pay twice), or
 * the client address that requests without a valid key are limited by.
 */
async function identifyCaller(req: ApiRequest, options: ApiV1Options): Promise<Caller> {
  try {
    const auth = await authenticate(restContext(req, options));
    const { actor, orgId } = auth;
    // A REST context only ever authenticates by key; its visible prefix (never the key) goes to the request log.
    return { keyId: actor.type === "apiKey" ? actor.keyId : actor.userId, orgId, keyPrefix: keyPrefix(req.header("x-api-key") ?? ""), auth };
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    const address = clientAddress({
      socketAddress: options.socketAddress,
      forwardedFor: req.header("x-forwarded-for"),
      trustedProxyHops: trustedProxyHops(),
    });
    return { address, authError: error };
  }
}

/**
 * `/api/v1/agents/{agentId}/outcomes` for logs and metrics: the request's route, else the POST or GET route of its
 * path (a method the path does not serve); unknown paths share one label.
 */
function routeLabel(route: RestRoute | undefined, path: string): string {
  if (path === "/openapi.json") return `${API_PREFIX}/openapi.json`;
  const named = route ?? findRestRoute("POST", path) ?? findRestRoute("GET", path);
  return named ? `${API_PREFIX}${named.template}` : `${API_PREFIX}/{unmatched}`;
}

/** `route`: the REST route of this method and path, if any (found once per request, see findRestRoute). */
type DispatchTarget = { method: string; route: RestRoute | undefined; path: string; search: string; caller: Caller };

/** A REST tRPC context on the request's headers, with the organization its key was verified for (once the edge has). */
function restContext(req: ApiRequest, options: ApiV1Options, caller?: Caller): Context {
  const verified = caller && "auth" in caller ? caller.auth : undefined;
  return createContext({ db: options.db, headers: { get: (name) => req.header(name.toLowerCase()) }, source: "rest", now: options.now, verified });
}

async function dispatch(req: ApiRequest, target: DispatchTarget, options: ApiV1Options): Promise<ApiResponse> {
  const { method, route, path, search, caller } = target;
  // Nothing below reads a body it is not going to use: unknown routes and requests without a valid key are
  // answered from the headers alone (the Node server then closes the connection instead of draining it).
  if (!route) return errorResponse("NOT_FOUND", "No such endpoint. See /api/v1/openapi.json.");
  let body: Record<string, unknown> | undefined;
  if (BODY_METHODS.has(method)) {
    if ("authError" in caller) return errorResponse(caller.authError.code, caller.authError.message);
    const parsed = await readJsonBody(req, bodyLimitBytes(route.method, route.template));
    if (!isParsedBody(parsed)) return parsed;
    body = parsed.value;
  }
  const outcome = await callRestProcedure(route, { method, path, search, body }, () => restContext(req, options, caller));
  if (outcome.ok) return { status: outcome.status, headers: outcome.headers, body: outcome.body };
  return errorResponseOf(outcome.error);
}

type ParsedBody = { value: Record<string, unknown> };
const isParsedBody = (parsed: ParsedBody | ApiResponse): parsed is ParsedBody => "value" in parsed;

/**
 * The body as a JSON object, or the error response: 413 over the limit (by Content-Length before reading, else
 * while reading), 415 for a present body that is not `application/json` or is content-encoded, 400 for bytes that
 * are not UTF-8 JSON or JSON that is not an object. No body at all is `{}` (optional bodies, e.g. meeting cancel).
 */
async function readJsonBody(req: ApiRequest, limitBytes: number): Promise<ParsedBody | ApiResponse> {
  const tooLarge = () =>
    errorResponse("PAYLOAD_TOO_LARGE", `The request body is larger than this endpoint accepts (${limitBytes} bytes).`);
  const declared = declaredContentLength({ get: req.header });
  if (declared !== null && declared > limitBytes) return tooLarge();
  let bytes: Uint8Array | null;
  try {
    bytes = await req.readBody(limitBytes);
  } catch (error) {
    if (error instanceof BodyTooLargeError) return tooLarge();
    return errorResponse("INVALID_REQUEST_BODY", "The request body could not be read completely.");
  }
  let text: string;
  try {
    text = utf8.decode(bytes ?? new Uint8Array());
  } catch {
    return errorResponse("INVALID_REQUEST_BODY", "The request body is not valid UTF-8.");
  }
  // No body at all is `{}`; 415 is only for a body that is present (DESIGN §4).
  if (text.trim() === "") return { value: {} };
  const encoding = req.header("content-encoding")?.trim().toLowerCase();
  if (!isJsonContentType(req.header("content-type")) || (encoding && encoding !== "identity")) {
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
  return { value: value as Record<string, unknown> };
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** A procedure's error as `{error, message}` with our status table (tRPC's error shape never leaks). */
function errorResponseOf(body: RestErrorBody): ApiResponse {
  const appCode = isAppErrorCode(body.data?.appCode) ? body.data.appCode : appCodeForTrpcCode(body.code ?? "INTERNAL_SERVER_ERROR");
  let message = body.data?.message ?? body.message ?? "Request failed.";
  if (appCode === "NOT_FOUND" && !body.data?.details && message === "Not found") message = "No such endpoint. See /api/v1/openapi.json.";
  if (appCode === "INTERNAL_SERVER_ERROR") message = INTERNAL_ERROR_MESSAGE;
  const details = body.data?.details;
  // NO_VALID_CONTACTS carries `rejected` at the top level too (DESIGN §4), like a 202's body.
  const extra = details ? { ...(Array.isArray(details.rejected) ? { rejected: details.rejected } : {}), details } : {};
  return errorResponse(appCode, message, {}, extra);
}

async function handleHead(req: ApiRequest, target: Omit<DispatchTarget, "method">, options: ApiV1Options): Promise<ApiResponse> {
  const { route, path, search, caller } = target;
  const scheduling = SCHEDULING_PATH.exec(path);
  if (scheduling) {
    try {
      // The id as GET passes it to procedures: the segment of the canonical path (one decoding, see canonicalPath).
      await createCaller(restContext(req, options, caller)).agents.checkAccess({ agentId: scheduling[1]! });
      return { status: 200, headers: {}, body: null };
    } catch (error) {
      return { status: ERROR_TABLE[appCodeOfError(error)].status, headers: {}, body: null };
    }
  }
  // Any other path: the GET of the same path, without its body (so unknown paths and bad keys are not 204).
  const get = await dispatch(req, { method: "GET", route, path, search, caller }, options);
  return { status: get.status, headers: get.headers, body: null };
}
