import { randomInt } from "node:crypto";
import type { Db } from "@/db";
import { handleApiV1, type ApiV1Options } from "@/server/http/api-v1";

export type ApiCallOptions = {
  method?: string;
  key?: string | null;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
  query?: Record<string, string | number | undefined>;
  /** The TCP peer the handler sees; by default a new address per call, so keyless calls never share a per-address limit. */
  socketAddress?: string;
};

export type ApiResult<T = any> = { status: number; body: T; headers: Headers; text: string };

/** Calls the real `/api/v1` route handler (a fetch handler: no server needed). */
export function apiClient(db: Db, options: Pick<ApiV1Options, "now" | "rateLimits"> = {}) {
  return async function call<T = any>(path: string, opts: ApiCallOptions = {}): Promise<ApiResult<T>> {
    const url = new URL(`http://localhost/api/v1${path}`);
    for (const [k, v] of Object.entries(opts.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    const headers = new Headers(opts.headers);
    if (opts.key) headers.set("x-api-key", opts.key);
    let body: string | undefined;
    if (opts.rawBody !== undefined) body = opts.rawBody;
    else if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      if (!headers.has("content-type")) headers.set("content-type", "application/json");
    }
    const socketAddress = opts.socketAddress ?? `198.18.${randomInt(256)}.${randomInt(256)}`;
    const res = await handleApiV1(new Request(url, { method: opts.method ?? "GET", headers, body }), { db, socketAddress, ...options });
    const text = await res.text();
    let parsed: unknown = undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = text;
    }
    return { status: res.status, body: parsed as T, headers: res.headers, text };
  };
}
