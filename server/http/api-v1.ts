import { createOpenApiNodeHttpHandler } from "trpc-to-openapi";
import type { Db } from "@/db";
import { appCodeForTrpcCode, appCodeOfError, ERROR_TABLE, isAppErrorCode, type AppErrorCode } from "../errors";
import { createContext, type Context } from "../trpc/context";
import { getOpenApiDocument } from "../trpc/openapi";
import { appRouter, createCaller } from "../trpc/root";
import { consumeRateLimit, rateLimitHeaders } from "./rate-limit";

export const API_PREFIX = "/api/v1";

export type ApiV1Options = { db: Db; now?: () => Date };

function errorResponse(code: AppErrorCode, message: string, headers: Record<string, string> = {}, extra: Record<string, unknown> = {}) {
  return Response.json({ error: code, message, ...extra }, { status: ERROR_TABLE[code].status, headers });
}

/** HEAD on these paths is a connectivity check of the key and the agent (spec: "The scheduling endpoints answer HEAD"). */
const SCHEDULING_PATH = /^\/agents\/([^/]+)\/schedule\/sequences?\/?$/;

/**
 * The `/api/v1` entry point: the trpc-to-openapi fetch handler wrapped so that every response under the prefix
 * keeps the spec's contract — `{error, message}` bodies with our status table (the library's own error body,
 * its 415/404/parse errors included, never leaks), per-key rate limiting, empty optional bodies, and HEAD.
 */
export async function handleApiV1(req: Request, options: ApiV1Options): Promise<Response> {
  const url = new URL(req.url);
  const path = url.pathname.startsWith(API_PREFIX) ? url.pathname.slice(API_PREFIX.length) || "/" : url.pathname;
  const method = req.method.toUpperCase();

  if (path === "/openapi.json" && (method === "GET" || method === "HEAD")) {
    const body = JSON.stringify(getOpenApiDocument(`${url.origin}${API_PREFIX}`));
    return new Response(method === "HEAD" ? null : body, { headers: { "content-type": "application/json" } });
  }

  let limitHeaders: Record<string, string> = {};
  const apiKey = req.headers.get("x-api-key");
  if (apiKey) {
    const decision = await consumeRateLimit(apiKey);
    limitHeaders = rateLimitHeaders(decision);
    if (!decision.allowed) {
      return errorResponse("RATE_LIMITED", "More than 10 requests per second for this API key. Back off and retry with jitter.", limitHeaders);
    }
  }

  try {
    const response = method === "HEAD" ? await handleHead(req, path, options) : await dispatch(req, method, options);
    return withHeaders(response, limitHeaders);
  } catch (error) {
    console.error("[api/v1] unexpected error", error);
    return errorResponse("INTERNAL_SERVER_ERROR", "An unexpected error occurred. Retry with backoff.", limitHeaders);
  }
}

async function dispatch(req: Request, method: string, options: ApiV1Options): Promise<Response> {
  let headers = req.headers;
  let body: unknown = undefined;
  if (method === "POST" || method === "PUT" || method === "PATCH" || method === "DELETE") {
    const text = await req.text();
    headers = new Headers(req.headers);
    if (text.trim() === "") {
      // No body at all is `{}` (optional bodies, e.g. meeting cancel); 415 is only for a body that is present.
      body = {};
      headers.set("content-type", "application/json");
    } else if ((headers.get("content-type") ?? "").toLowerCase().startsWith("application/json")) {
      try {
        body = JSON.parse(text);
      } catch {
        return errorResponse("INVALID_REQUEST_BODY", "The request body is not valid JSON.");
      }
    } else {
      return errorResponse("UNSUPPORTED_MEDIA_TYPE", "Request bodies must be JSON: send Content-Type: application/json.");
    }
  }
  const url = new URL(req.url);
  const relativeUrl = `${url.pathname.slice(API_PREFIX.length) || "/"}${url.search}`;
  const response = await invokeOpenApi(req, { relativeUrl, headers, body }, () =>
    createContext({ db: options.db, headers: req.headers, source: "rest", now: options.now }),
  );
  if (response.status < 400) return response;
  return reshapeError(response);
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
  if (appCode === "INTERNAL_SERVER_ERROR") message = "An unexpected error occurred. Retry with backoff.";
  const headers: Record<string, string> = {};
  const retryAfter = response.headers.get("retry-after");
  if (retryAfter) headers["Retry-After"] = retryAfter;
  const details = body.data?.details;
  // NO_VALID_CONTACTS carries `rejected` at the top level too (DESIGN §4), like a 202's body.
  const extra = details ? { ...(Array.isArray(details.rejected) ? { rejected: details.rejected } : {}), details } : {};
  return errorResponse(appCode, message, headers, extra);
}

async function handleHead(req: Request, path: string, options: ApiV1Options): Promise<Response> {
  const scheduling = SCHEDULING_PATH.exec(path);
  if (scheduling) {
    const ctx = createContext({ db: options.db, headers: req.headers, source: "rest", now: options.now });
    try {
      await createCaller(ctx).agents.checkAccess({ agentId: decodeURIComponent(scheduling[1]!) });
      return new Response(null, { status: 200 });
    } catch (error) {
      return new Response(null, { status: ERROR_TABLE[appCodeOfError(error)].status });
    }
  }
  // Any other path: the GET of the same path, without its body (so unknown paths and bad keys are not 204).
  const get = await dispatch(new Request(req.url, { method: "GET", headers: req.headers }), "GET", options);
  return new Response(null, { status: get.status, headers: get.headers });
}

function withHeaders(response: Response, headers: Record<string, string>): Response {
  if (Object.keys(headers).length === 0) return response;
  const merged = new Headers(response.headers);
  for (const [key, value] of Object.entries(headers)) merged.set(key, value);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers: merged });
}
