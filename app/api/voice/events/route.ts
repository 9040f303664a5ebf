import { serveVoiceEvent } from "@/server/http/voice-events-route";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/**
 * Voice provider events (the simulator's, or a real provider's webhook): see server/http/voice-events.ts. The
 * production server answers this path itself (server/http/node-server.ts); this route serves `next dev` and tests.
 */
export async function POST(request: Request): Promise<Response> {
  return serveVoiceEvent(request);
}
