/**
 * The voice simulator's own process, as a provider runs calls on its own machines: forked by the app
 * (server/voice/simulator/process-engine.ts) with an IPC channel. It runs the conversations, posts their signed events
 * to the app's `/api/voice/events` over HTTP and serves their recordings from its recording host; the app only sends
 * it `place` and `end` requests. It exits when the app goes away (the IPC channel closes, even on the app's SIGKILL),
 * on SIGTERM (the app's shutdown), and ignores SIGINT: a Ctrl-C reaches the whole process group, and the app stops it
 * once its own drain is over.
 */
import { flushLogs, getLogger } from "@/server/observability/logger";
import { createFetchTransport } from "@/server/voice/transport";
import type { FromSimulatorProcess, SimulatorProcessSettings, ToSimulatorProcess } from "./process-protocol";
import { createSimulatorRecordingHost } from "./recording-host";
import { createSimulatedVoiceEngine, type SimulatedVoiceEngine } from "./simulator";

const log = getLogger("voice-simulator");

if (!process.send) {
  log.fatal("the voice simulator process is started by the app (with an IPC channel), not on its own");
  process.exit(1);
}

const send = (message: FromSimulatorProcess) => process.send!(message);
let engine: SimulatedVoiceEngine | null = null;

async function start(settings: SimulatorProcessSettings) {
  const recordingHost = createSimulatorRecordingHost();
  engine = createSimulatedVoiceEngine({
    transport: createFetchTransport({ url: settings.eventsUrl, secret: Buffer.from(settings.secretBase64, "base64") }),
    msPerSimulatedSecond: settings.msPerSimulatedSecond,
    maxConversationMs: settings.maxConversationMs,
    recordings: "url",
    recordingHost,
    transcriptBatchMs: settings.transcriptBatchMs,
  });
  send({ type: "ready", recordingOrigin: await recordingHost.origin() });
}

async function answer(message: Extract<ToSimulatorProcess, { id: number }>) {
  try {
    if (!engine) throw new Error("the voice simulator process has not started yet");
    const value =
      message.type === "place"
        ? await engine.placeCall(message.request)
        : message.type === "end-all"
          ? await engine.hangUpAll()
          : message.type === "state"
            ? await engine.callState({ callId: message.callId, providerCallId: message.providerCallId })
            : ((await engine.endCall?.(message.callId)) ?? false);
    send({ type: "reply", id: message.id, ok: true, value });
  } catch (error) {
    send({ type: "reply", id: message.id, ok: false, message: error instanceof Error ? error.message : String(error) });
  }
}

process.on("message", (message: ToSimulatorProcess) => {
  if (message.type === "start") {
    start(message.settings).catch((error: unknown) => {
      log.fatal({ err: error }, "the voice simulator process could not start");
      void flushLogs().finally(() => process.exit(1));
    });
  } else {
    void answer(message);
  }
});
process.on("disconnect", () => void flushLogs().finally(() => process.exit(0)));
process.on("SIGINT", () => {});
