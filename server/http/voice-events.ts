import type { Db } from "@/db";
import { ERROR_TABLE, type AppErrorCode } from "@/server/errors";
import { handleVoiceProviderEvent } from "@/server/services/call-engine/voice-events";
import { ZVoiceProviderEventSchema } from "@/server/voice/event-schema";
import { verifyVoiceEvent } from "@/server/voice/signature";
import type { VoiceProviderEvent } from "@/server/voice/types";
import { BodyTooLargeError, declaredContentLength, readBodyWithLimit } from "./request-body";

/** Largest accepted event body (an inline recording of a few minutes fits). */
const MAX_BODY_BYTES = 25 * 1024 * 1024;

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
const MACHINE_HEADERS = { "cache-control": "no-store, no-transform" };

/** `{error, message}` with the status of the error table, as everywhere else. */
function errorResponse(code: AppErrorCode, message: string): Response {
  return Response.json({ error: code, message }, { status: ERROR_TABLE[code].status, headers: MACHINE_HEADERS });
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

/**
 * `POST /api/voice/events`: the provider-event entry point. The simulator posts here, and so would a real
 * provider's webhook. Trust boundary: nothing in the body is believed before the HMAC signature (shared provider
 * secret, timestamped) checks out; the event must then name a call we placed (and, once bound, its provider call ID).
 *
 * Answers (statuses from the error table): 200 `{ok, result?}` (tool calls get their result), 413 body over 25 MB,
 * 401 bad signature, 400 bad body, 404 unknown call,
 * 503 when the ended call could not be announced (the provider retries; a retry re-announces).
 */
export async function handleVoiceEventRequest(request: Request, deps: VoiceEntryPointDeps): Promise<Response> {
  const body = await readEventBody(request);
  if (body === null) return errorResponse("PAYLOAD_TOO_LARGE", `The event body is larger than ${MAX_BODY_BYTES} bytes.`);
  if (!verifyVoiceEvent(body, request.headers, { secret: deps.secret })) return errorResponse("UNAUTHORIZED", "Missing or invalid event signature.");
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return errorResponse("INVALID_REQUEST_BODY", "The body is not valid JSON.");
  }
  const result = ZVoiceProviderEventSchema.safeParse(parsed);
  if (!result.success) {
    const issue = result.error.issues[0];
    return errorResponse("INVALID_REQUEST", `Invalid event: ${issue?.path.join(".") || "body"} ${issue?.message ?? ""}`.trim());
  }
  const event = result.data as VoiceProviderEvent;
  const outcome = await handleVoiceProviderEvent(deps.db, { event });
  if (outcome.status === "unknown-call") return errorResponse("CALL_NOT_FOUND", `Call ${event.callId} was not placed by this service.`);
  // A repeated call.ended for a call still waiting for analysis re-announces it: the first announcement may be
  // the one that was lost (the analysis is idempotent per call).
  const announce = event.type === "call.ended" && (outcome.status === "accepted" ? outcome.callEnded : outcome.reason === "call is Processing Analysis");
  if (announce) {
    try {
      await deps.announceCallEnded(event.callId);
    } catch {
      return errorResponse("PROVIDER_UNAVAILABLE", "The event was recorded but could not be processed yet; retry.");
    }
  }
  return Response.json(
    { ok: true, status: outcome.status, ...(outcome.status === "accepted" && outcome.toolResult ? { result: outcome.toolResult } : {}) },
    { headers: MACHINE_HEADERS },
  );
}
