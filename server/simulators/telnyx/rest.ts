import type { IncomingMessage, ServerResponse } from "node:http";

/**
 * The shape of Telnyx API v2 answers, from https://developers.telnyx.com/development/api-fundamentals/request-response
 * and https://developers.telnyx.com/development/api-fundamentals/api-errors (the error catalog: 10002 Invalid phone
 * number, 10004 Missing required parameter, 10005 Resource not found, 10009 Authentication failed, 10015 Bad Request,
 * 10016 Phone number must be in +E.164 format; Call Control: 90018 Call has already ended): every success is
 * `{data: …}` (lists add `meta`), every error `{errors: [{code, title, detail, source?, meta: {url}}]}`.
 */

export type TelnyxErrorEntry = { code: string; title: string; detail: string; source?: { pointer: string } };

export const ERRORS = {
  invalidNumber: { code: "10002", title: "Invalid phone number", detail: "The phone number is invalid." },
  missing: { code: "10004", title: "Missing required parameter", detail: "A required parameter was missing." },
  notFound: { code: "10005", title: "Resource not found", detail: "The requested resource or URL could not be found." },
  unexpected: { code: "10007", title: "Unexpected error", detail: "An unexpected error occured." },
  authentication: { code: "10009", title: "Authentication failed", detail: "The required authentication headers were either invalid or not included in the request." },
  badRequest: { code: "10015", title: "Bad Request", detail: "The request failed because it was not well-formed." },
  e164: { code: "10016", title: "Phone number must be in +E.164 format", detail: "The specified phone number parameter must be in +E.164 format." },
  callEnded: { code: "90018", title: "Call has already ended", detail: "This call is no longer active and can't receive commands." },
} satisfies Record<string, TelnyxErrorEntry>;

export const E164 = /^\+[1-9]\d{6,14}$/;

export function json(res: ServerResponse, status: number, body: unknown): number {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) }).end(text);
  return status;
}

/** Telnyx's error answer: one or more errors, each with a link to its page. */
export function telnyxError(res: ServerResponse, status: number, ...errors: TelnyxErrorEntry[]): number {
  return json(res, status, {
    errors: errors.map((error) => ({ ...error, meta: { url: `https://developers.telnyx.com/docs/overview/errors/${error.code}` } })),
  });
}

/** `entry` with the pointer of the request field it is about (`/to`). */
export function about(entry: TelnyxErrorEntry, field: string, detail?: string): TelnyxErrorEntry {
  return { ...entry, ...(detail ? { detail } : {}), source: { pointer: `/${field}` } };
}

/** The JSON body of a request: an object, or null when it is not JSON (an empty body is `{}`). */
export async function readJson(req: IncomingMessage): Promise<Record<string, unknown> | null> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString("utf8").trim();
  if (!text) return {};
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

export const str = (body: Record<string, unknown>, key: string): string | undefined => (typeof body[key] === "string" ? (body[key] as string) : undefined);

export function isCallbackUrl(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.protocol === "https:" || parsed.protocol === "http:";
  } catch {
    return false;
  }
}
