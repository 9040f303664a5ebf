import { getTwilioRealtimeEngine } from "@/server/voice";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/**
 * Twilio's signed callbacks for `VOICE_ENGINE=twilio-realtime` (TwiML at answer, call status, answering-machine
 * detection, recording status): see server/voice/twilio-realtime/engine.ts. 404 when another engine is configured.
 */
export async function POST(request: Request): Promise<Response> {
  const engine = getTwilioRealtimeEngine();
  if (!engine) return new Response("Not found", { status: 404 });
  return engine.handleCallback(request);
}
