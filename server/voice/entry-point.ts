import type { Db } from "@/db";
import type { AppErrorCode } from "@/server/errors";
import { handleVoiceProviderEvent } from "@/server/services/call-engine/voice-events";
import { ZVoiceProviderEventSchema } from "./event-schema";
import { verifyVoiceEvent } from "./signature";
import type { VoiceProviderEvent } from "./types";

/** Largest accepted event body (an inline recording of a few minutes fits). */
const MAX_BODY_BYTES = 25 * 1024 * 1024;

export type VoiceEntryPointDeps = {
  db: Db;
  /** Announces an ended call (`call/ended`); runs after the write committed. A throw makes the provider retry. */
  announceCallEnded: (callId: string) => Promise<void>;
  secret?: Buffer;
};

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
}

function error(status: number, code: AppErrorCode, message: string): Response {
  return json(status, { error: code, message });
}

/**
 * `POST /api/voice/events`: the provider-event entry point. The simulator posts here, and so would a real
 * provider's webhook. Trust boundary: nothing in the body is believed before the HMAC signature (shared provider
 * secret, timestamped) checks out; the event must then name a call we placed (and, once bound, its provider call ID).
 *
 * Answers: 200 `{ok, result?}` (tool calls get their result), 401 bad signature, 400 bad body, 404 unknown call,
 * 503 when the ended call could not be announced (the provider retries; a retry re-announces).
 */
export async function handleVoiceEventRequest(request: Request, deps: VoiceEntryPointDeps): Promise<Response> {
  const length = Number(request.headers.get("content-length") ?? 0);
  if (length > MAX_BODY_BYTES) return error(413, "INVALID_REQUEST", "Event body too large.");
  const body = await request.text();
  if (body.length > MAX_BODY_BYTES) return error(413, "INVALID_REQUEST", "Event body too large.");
  if (!verifyVoiceEvent(body, request.headers, { secret: deps.secret })) return error(401, "UNAUTHORIZED", "Missing or invalid event signature.");
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return error(400, "INVALID_REQUEST_BODY", "The body is not valid JSON.");
  }
  const result = ZVoiceProviderEventSchema.safeParse(parsed);
  if (!result.success) {
    const issue = result.error.issues[0];
    return error(400, "INVALID_REQUEST", `Invalid event: ${issue?.path.join(".") || "body"} ${issue?.message ?? ""}`.trim());
  }
  const event = result.data as VoiceProviderEvent;
  const outcome = await handleVoiceProviderEvent(deps.db, { event });
  if (outcome.status === "unknown-call") return error(404, "CALL_NOT_FOUND", `Call ${event.callId} was not placed by this service.`);
  // A repeated call.ended for a call still waiting for analysis re-announces it: the first announcement may be
  // the one that was lost (the analysis is idempotent per call).
  const announce = event.type === "call.ended" && (outcome.status === "accepted" ? outcome.callEnded : outcome.reason === "call is Processing Analysis");
  if (announce) {
    try {
      await deps.announceCallEnded(event.callId);
    } catch {
      return error(503, "PROVIDER_UNAVAILABLE", "The event was recorded but could not be processed yet; retry.");
    }
  }
  return json(200, { ok: true, status: outcome.status, ...(outcome.status === "accepted" && outcome.toolResult ? { result: outcome.toolResult } : {}) });
}
