import { getDb } from "@/db";
import { inngest } from "@/inngest/client";
import { callEnded } from "@/inngest/events";
import { handleVoiceEventRequest } from "@/server/http/voice-events";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** Voice provider events (the simulator's, or a real provider's webhook): see server/http/voice-events.ts. */
export async function POST(request: Request): Promise<Response> {
  return handleVoiceEventRequest(request, {
    db: getDb(),
    announceCallEnded: async (callId) => {
      // One run per call: a repeated announcement of an event that did arrive is dropped by its ID.
      await inngest.send(callEnded.create({ callId }, { id: `call-ended:${callId}` }));
    },
  });
}
