import type { ServerResponse } from "node:http";

/**
 * The REST answers every resource of the Twilio simulator shares, as Twilio's 2010-04-01 API gives them: JSON bodies,
 * errors as `{code, message, more_info, status}` (https://www.twilio.com/docs/usage/twilios-response#response-formats-exceptions),
 * dates in RFC 2822, and list pages with `Page`/`PageSize` and their `*_page_uri`s.
 */

export function json(res: ServerResponse, status: number, body: unknown): number {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
  return status;
}

/** Writes Twilio's error body and returns the HTTP status (what the simulator's handlers return). */
export function twilioError(res: ServerResponse, status: number, code: number, message: string): number {
  return json(res, status, { code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status });
}

export function notFound(res: ServerResponse): number {
  return twilioError(res, 404, 20404, "The requested resource was not found");
}

export function noContent(res: ServerResponse): number {
  res.writeHead(204).end();
  return 204;
}

export function rfc2822(date: Date): string {
  return date.toUTCString().replace("GMT", "+0000");
}

/** A fully qualified http(s) URL, as Twilio requires of every callback (21502 otherwise). */
export function isCallbackUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === "https:" || url.protocol === "http:") && url.hostname.length > 0;
  } catch {
    return false;
  }
}

/**
 * One page of a list resource: `Page` (from 0) and `PageSize` (default 50, at most 1000) from the query, the records
 * under `key`, and `next_page_uri` while more remain (the `twilio` client follows it until its `limit`).
 */
export function listPage<T>(url: URL, path: string, key: string, records: T[]): Record<string, unknown> {
  const pageSize = Math.min(1000, Math.max(1, Number.parseInt(url.searchParams.get("PageSize") ?? "50", 10) || 50));
  const page = Math.max(0, Number.parseInt(url.searchParams.get("Page") ?? "0", 10) || 0);
  const start = page * pageSize;
  const items = records.slice(start, start + pageSize);
  const uriOf = (n: number) => {
    const query = new URLSearchParams(url.searchParams);
    query.set("PageSize", String(pageSize));
    query.set("Page", String(n));
    return `${path}?${query.toString()}`;
  };
  return {
    [key]: items,
    end: start + Math.max(0, items.length - 1),
    first_page_uri: uriOf(0),
    next_page_uri: start + pageSize < records.length ? uriOf(page + 1) : null,
    page,
    page_size: pageSize,
    previous_page_uri: page > 0 ? uriOf(page - 1) : null,
    start,
    uri: uriOf(page),
  };
}
