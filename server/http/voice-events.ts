import type { Db } from "@/db";
import { ERROR_TABLE, type AppErrorCode } from "@/server/errors";
import { handleVoiceProviderEvent } from "@/server/services/call-engine/voice-events";
import { ZVoiceProviderEventSchema } from "@/server/voice/event-schema";
import { verifyVoiceEvent } from "@/server/voice/signature";
import type { VoiceProviderEvent } from "@/server/voice/types";
import { BodyTooLargeError, declaredContentLength, readBodyWithLimit } from "./request-body";

/** Largest accepted event body (an inline recording of a few minutes fits). */
export const MAX_BODY_BYTES = 25 * 1024 * 1024;

export type VoiceEntryPointDeps = {
  db: Db;
  /** Announces an ended call (`call/ended`); runs after the write committed. A throw makes the provider retry. */
  announceCallEnded: (callId: string) => Promise<void>;
  secret?: Buffer;
};

/**
 * Answers to a provider, not a browser: never cached, and `no-transform` keeps the server's response compression off
 * them (Next compresses every streamed answer of unknown length; a zlib stream per answer of a few bytes cost the app
 * more CPU at campaign rates than the answer itself).
 */
export const MACHINE_HEADERS = { "cache-control": "no-store, no-transform" };

/** An answer to a provider: its status and JSON body (written as a fetch Response or on Node's own response). */
export type VoiceEventAnswer = { status: number; body: Record<string, unknown> };

/** `{error, message}` with the status of the error table, as everywhere else. */
function errorAnswer(code: AppErrorCode, message: string): VoiceEventAnswer {
  return { status: ERROR_TABLE[code].status, body: { error: code, message } };
}

async function readEventBody(request: Request): Promise<string | null> {
  if ((declaredContentLength(request.headers) ?? 0) > MAX_BODY_BYTES) return null;
  try {
    const bytes = await readBodyWithLimit(request.body, MAX_BODY_BYTES);
    return bytes ? new TextDecoder().decode(bytes) : "";
  } catch (error) {
    if (error instanceof BodyTooLargeError) return null;
    throw error;
  }
}

/** `handleVoiceEventRequest` on a fetch Request (the Next.js route, `next dev` and tests). */
export async function handleVoiceEventRequest(request: Request, deps: VoiceEntryPointDeps): Promise<Response> {
  const body = await readEventBody(request);
  const answer = await answerVoiceEvent(body, request.headers, deps);
  return Response.json(answer.body, { status: answer.status, headers: MACHINE_HEADERS });
}

/**
 * `POST /api/voice/events`: the provider-event entry point. The simulator posts here, and so would a real
 * provider's webhook. Trust boundary: nothing in the body is believed before the HMAC signature (shared provider
 * secret, timestamped) checks out; the event must then name a call we placed (and, once bound, its provider call ID).
 *
 * Answers (statuses from the error table): 200 `{ok, result?}` (tool calls get their result), 413 body over 25 MB,
 * 401 bad signature, 400 bad body, 404 unknown call,
 * 503 when the ended call could not be announced (the provider retries; a retry re-announces).
 * `body` is the request's body as read (null: over the 25 MB limit); the production server reads it on Node's own
 * request and writes the answer on Node's own response (server/http/node-fast-paths.ts, `serveVoiceEventOnNode`):
 * a fetch Request and Response per event cost more CPU than the rest of the entry point (issue 38's CPU profile).
 */
export async function answerVoiceEvent(body: string | null, headers: Pick<Headers, "get">, deps: VoiceEntryPointDeps): Promise<VoiceEventAnswer> {
  if (body === null) return errorAnswer("PAYLOAD_TOO_LARGE", `The event body is larger than ${MAX_BODY_BYTES} bytes.`);
  if (!verifyVoiceEvent(body, headers, { secret: deps.secret })) return errorAnswer("UNAUTHORIZED", "Missing or invalid event signature.");
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return errorAnswer("INVALID_REQUEST_BODY", "The body is not valid JSON.");
  }
  const result = ZVoiceProviderEventSchema.safeParse(parsed);
  if (!result.success) {
    const issue = result.error.issues[0];
    return errorAnswer("INVALID_REQUEST", `Invalid event: ${issue?.path.join(".") || "body"} ${issue?.message ?? ""}`.trim());
  }
  const event = result.data as VoiceProviderEvent;
  const outcome = await handleVoiceProviderEvent(deps.db, { event });
  if (outcome.status === "unknown-call") return errorAnswer("CALL_NOT_FOUND", `Call ${event.callId} was not placed by this service.`);
  // A repeated call.ended for a call still waiting for analysis re-announces it: the first announcement may be
  // the one that was lost (the analysis is idempotent per call).
  const announce = event.type === "call.ended" && (outcome.status === "accepted" ? outcome.callEnded : outcome.reason === "call is Processing Analysis");
  if (announce) {
    try {
      await deps.announceCallEnded(event.callId);
    } catch {
      return errorAnswer("PROVIDER_UNAVAILABLE", "The event was recorded but could not be processed yet; retry.");
    }
  }
  return { status: 200, body: { ok: true, status: outcome.status, ...(outcome.status === "accepted" && outcome.toolResult ? { result: outcome.toolResult } : {}) } };
}
