import type { PlaceCallRequest, PlaceCallResult, ProviderCallState } from "@/server/voice/types";

/** What the app tells its simulator process (server/voice/simulator/process-entry.ts), over the fork's IPC channel. */
export type SimulatorProcessSettings = {
  /** The app's provider-event entry point, `POST /api/voice/events`. */
  eventsUrl: string;
  /** The secret the events are signed with (base64): the app's, whatever its source. */
  secretBase64: string;
  msPerSimulatedSecond?: number;
  maxConversationMs?: number;
  transcriptBatchMs: number;
};

export type ToSimulatorProcess =
  | { type: "start"; settings: SimulatorProcessSettings }
  | { type: "place"; id: number; request: PlaceCallRequest }
  | { type: "end"; id: number; callId: string }
  /** The simulator's record of a call (the watchdog asks before it gives up on one). */
  | { type: "state"; id: number; callId: string; providerCallId: string }
  /** Hang up every call in the air and reply (with their number) once their events are delivered. */
  | { type: "end-all"; id: number };

export type FromSimulatorProcess =
  /** Started: its recording host listens at `recordingOrigin`. */
  | { type: "ready"; recordingOrigin: string }
  | { type: "reply"; id: number; ok: true; value: SimulatorReply }
  | { type: "reply"; id: number; ok: false; message: string };

export type SimulatorReply = PlaceCallResult | ProviderCallState | boolean | number;
