import { getDb } from "@/db";
import { inngest } from "@/inngest/client";
import { callEnded } from "@/inngest/events";
import { answerVoiceEvent, handleVoiceEventRequest, type VoiceEntryPointDeps, type VoiceEventAnswer } from "./voice-events";

/** The provider-event entry point's path (the simulator posts here, and so would a real provider's webhook). */
export const VOICE_EVENTS_PATH = "/api/voice/events";

/**
 * `POST /api/voice/events` with the app's own dependencies: served by the production server itself
 * (server/http/node-server.ts) and by the Next.js route (`app/api/voice/events/route.ts`, for `next dev`-only setups and
 * tests). At campaign rates every call posts several events, and Next's per-request routing cost more CPU than the
 * event's own work (issue 38: bench/campaign.ts, docs/call-engine.md), so the production server skips it.
 */
export function serveVoiceEvent(request: Request): Promise<Response> {
  return handleVoiceEventRequest(request, appDeps());
}

/** The same entry point on a body already read and the request's headers (the production server's Node path). */
export function answerVoiceEventWithAppDeps(body: string | null, headers: Pick<Headers, "get">): Promise<VoiceEventAnswer> {
  return answerVoiceEvent(body, headers, appDeps());
}

function appDeps(): VoiceEntryPointDeps {
  return {
    db: getDb(),
    announceCallEnded: async (callId) => {
      // One run per call: a repeated announcement of an event that did arrive is dropped by its ID.
      await inngest.send(callEnded.create({ callId }, { id: `call-ended:${callId}` }));
    },
  };
}
