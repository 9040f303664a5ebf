import { createOpenApiFetchHandler } from "trpc-to-openapi";
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
  let forwarded = req;
  if (method === "POST" || method === "PUT" || method === "PATCH" || method === "DELETE") {
    const text = await req.text();
    const headers = new Headers(req.headers);
    let body = text;
    if (text.trim() === "") {
      // No body at all is `{}` (optional bodies, e.g. meeting cancel); 415 is only for a body that is present.
      body = "{}";
      headers.set("content-type", "application/json");
    } else if ((headers.get("content-type") ?? "").toLowerCase().startsWith("application/json")) {
      try {
        JSON.parse(text);
      } catch {
        return errorResponse("INVALID_REQUEST_BODY", "The request body is not valid JSON.");
      }
    } else {
      return errorResponse("UNSUPPORTED_MEDIA_TYPE", "Request bodies must be JSON: send Content-Type: application/json.");
    }
    forwarded = new Request(req.url, { method, headers, body });
  }

  let context: Context | undefined;
  const response = await createOpenApiFetchHandler({
    router: appRouter,
    endpoint: API_PREFIX,
    req: forwarded,
    createContext: () => {
      context = createContext({ db: options.db, headers: req.headers, source: "rest", now: options.now });
      return context;
    },
    responseMeta: ({ errors }) => {
      // responseMeta also runs on errors and its status would override theirs: only successes take ours.
      if (errors.length > 0 || !context) return {};
      return { status: context.resMeta.status, headers: context.resMeta.headers };
    },
  });
  if (response.status < 400) return response;
  return reshapeError(response);
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
