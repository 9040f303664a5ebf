import type { Db } from "@/db";
import { handleApiV1 } from "@/server/http/api-v1";

export type ApiCallOptions = {
  method?: string;
  key?: string | null;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
  query?: Record<string, string | number | undefined>;
};

export type ApiResult<T = any> = { status: number; body: T; headers: Headers; text: string };

/** Calls the real `/api/v1` route handler (a fetch handler: no server needed). */
export function apiClient(db: Db, options: { now?: () => Date } = {}) {
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
    const res = await handleApiV1(new Request(url, { method: opts.method ?? "GET", headers, body }), { db, now: options.now });
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
