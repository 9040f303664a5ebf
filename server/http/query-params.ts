import { z } from "zod";
import { ERROR_TABLE } from "@/server/errors";
import { findRefusedInput, type RefusedInput } from "@/server/schemas/text";
import { describeZodError, zodIssuesOf } from "@/server/schemas/validation-message";

/**
 * The query parameters of every route outside `/api/v1` and `/api/trpc` that reads any — the WebSockets
 * (`/ws/listen`, `/ws/agent-test`), Twilio's callbacks (`/api/carriers/twilio/*` and the aliases `/api/voice/twilio/*`, `/api/twilio/messages/status`) and the
 * signed recording links — checked the way `/api/v1` checks its inputs, before anything reads the database:
 * 1. no NUL or unpaired UTF-16 surrogate in any name or value (the text guard of server/trpc/init.ts: PostgreSQL
 *    cannot store a NUL, and a query with one used to reach it as a 500);
 * 2. the route's zod schema (a parameter given twice arrives as an array, which a string schema refuses).
 * A refusal is 400 `INVALID_REQUEST` `{error, message, details: {issues}}`, the message naming the parameter; a
 * WebSocket gets it as the HTTP answer to its upgrade (server/http/upgrades.ts `refuseUpgrade`).
 */

export type QueryRefusal = { status: number; body: { error: "INVALID_REQUEST"; message: string; details: { issues: RefusedInput[] } } };

export type ParsedQuery<T> = { ok: true; query: T } | { ok: false; refusal: QueryRefusal };

function refusal(message: string, issues: RefusedInput[]): QueryRefusal {
  return { status: ERROR_TABLE.INVALID_REQUEST.status, body: { error: "INVALID_REQUEST", message, details: { issues } } };
}

/** The query of a request target (`/path?a=1`), a URL, or its search params, checked against `schema`. */
export function parseQuery<T extends z.ZodType>(schema: T, source: string | URL | URLSearchParams): ParsedQuery<z.output<T>> {
  const params = source instanceof URLSearchParams ? source : source instanceof URL ? source.searchParams : new URL(source, "http://query").searchParams;
  const raw: Record<string, string | string[]> = {};
  for (const [name, value] of params) {
    const given = raw[name];
    raw[name] = given === undefined ? value : [given, value].flat();
  }
  const unsafe = findRefusedInput(raw);
  if (unsafe) return { ok: false, refusal: refusal(`Invalid request: ${unsafe.path}: ${unsafe.message}`, [unsafe]) };
  const result = schema.safeParse(raw);
  if (!result.success) return { ok: false, refusal: refusal(describeZodError(result.error), zodIssuesOf(result.error)) };
  return { ok: true, query: result.data };
}

/** A query refusal as a fetch Response (route handlers), with the route's own headers. */
export function queryRefusalResponse(refused: QueryRefusal, headers: Record<string, string> = {}): Response {
  const merged = new Headers({ "cache-control": "no-store" });
  for (const [name, value] of Object.entries(headers)) merged.set(name, value);
  return Response.json(refused.body, { status: refused.status, headers: merged });
}
