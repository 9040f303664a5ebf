import { getDb } from "@/db";
import { readUpgradeActor } from "@/server/auth/session-cookie";
import { carrierOfEngine } from "@/server/carriers/registry";
import { getTwilioRealtimeEngine, getVoiceEngine } from "@/server/voice";
import { getListenHub } from "@/server/voice/listen";
import { createListenSocketHandler } from "@/server/voice/listen/listen-socket";
import { getTestCallServer } from "@/server/voice/test-call/test-call-server";
import { TWILIO_LEGACY_MEDIA_PATH, TWILIO_MEDIA_PATH } from "@/server/voice/twilio-realtime/settings";
import type { UpgradeRoute } from "./upgrades";

let listenSocket: ReturnType<typeof createListenSocketHandler> | null = null;

/** Supervisors listening to live calls (server/voice/listen): the session cookie of the console, checked before the upgrade. */
function listenRoute(): UpgradeRoute {
  listenSocket ??= createListenSocketHandler({
    getDb,
    hub: getListenHub,
    readActor: (request) => readUpgradeActor(getDb(), request),
    simulatedAudio: () => !carrierOfEngine(getVoiceEngine().kind).streamsRealAudio,
  });
  return { path: listenSocket.path, handle: listenSocket.handle };
}

/** The app's WebSockets: browser test calls of agents, listening in on live calls, and Twilio Media Streams when VOICE_ENGINE=twilio-realtime. */
export function appUpgradeRoutes(): UpgradeRoute[] {
  const testCalls = getTestCallServer({ getDb, now: () => new Date() });
  const routes: UpgradeRoute[] = [{ path: testCalls.path, handle: (request, socket, head) => testCalls.handleUpgrade(request, socket, head) }, listenRoute()];
  const voice = getTwilioRealtimeEngine();
  if (voice) {
    // The media stream's path and its older alias (numbers and calls set up with it keep working).
    for (const path of [TWILIO_MEDIA_PATH, TWILIO_LEGACY_MEDIA_PATH]) routes.push({ path, handle: (request, socket, head) => void voice.handleUpgrade(request, socket, head) });
  }
  return routes;
}
