import { getTwilioRealtimeEngine } from "@/server/voice";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/**
 * Twilio's signed webhooks for calls to our numbers (`inbound`: a call comes in; `status`: its status changes), with
 * `VOICE_ENGINE=twilio-realtime`: server/voice/twilio-realtime/inbound.ts. 404 with another engine (docs/sequences.md
 * "Callbacks": the simulator's callbacks go through the console).
 */
export async function POST(request: Request): Promise<Response> {
  const engine = getTwilioRealtimeEngine();
  if (!engine) return new Response("Not found", { status: 404 });
  return engine.handleInboundWebhook(request);
}
