import { readTwilioRealtimeSettings } from "@/server/voice/twilio-realtime/settings";
import type { Carrier } from "../types";

/** Twilio dials, OpenAI Realtime talks (docs/voice-twilio.md). */
export const twilioRealtimeCarrier = {
  name: "twilio-realtime",
  urlSegment: "twilio",
  dialsDemoData: false,
  simulatesCallbacks: false,
  answersInboundAsHuman: true,
  takesInboundMessages: true,
  streamsRealAudio: true,
  postsEventsToLoopback: false,
  readSettings: (env) => void readTwilioRealtimeSettings(env),
  facts: (config) => [
    { label: "Phone calls", value: "Twilio" },
    { label: "Conversation model", value: `OpenAI Realtime (${config.REALTIME_MODEL})` },
    { label: "Public address Twilio calls back", value: config.PUBLIC_BASE_URL ?? "not set" },
  ],
} as const satisfies Carrier;
