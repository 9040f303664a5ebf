import { settingsOf } from "./setting";
import { httpUrl, text } from "./value-types";

/**
 * The real voice engine, Twilio + OpenAI Realtime (docs/voice-twilio.md); server/voice/twilio-realtime/settings.ts
 * checks them together when `VOICE_ENGINE=twilio-realtime`.
 */
const setting = settingsOf("Real voice engine (VOICE_ENGINE=twilio-realtime)");

export const twilioRealtimeSettings = {
  TWILIO_ACCOUNT_SID: setting(text().optional(), {
    description: "The Twilio account (`AC…`).",
    sameOnEveryInstance: true,
  }),
  TWILIO_AUTH_TOKEN: setting(text().optional(), {
    description: "Verifies every Twilio callback's `X-Twilio-Signature` (and authenticates REST without an API key).",
    secret: true,
    sameOnEveryInstance: true,
  }),
  TWILIO_API_KEY: setting(text().optional(), {
    description: "An API key (`SK…`) for Twilio's REST API instead of the auth token (with `TWILIO_API_SECRET`).",
    sameOnEveryInstance: true,
  }),
  TWILIO_API_SECRET: setting(text().optional(), {
    description: "The API key's secret.",
    secret: true,
    sameOnEveryInstance: true,
  }),
  TWILIO_API_BASE_URL: setting(httpUrl().optional(), {
    description: "Twilio's REST origin (tests point it at a simulator).",
    default: "`https://api.twilio.com`",
    sameOnEveryInstance: true,
  }),
  PUBLIC_BASE_URL: setting(httpUrl().optional(), {
    description: "The `https://` origin Twilio reaches this service at (callbacks are verified against it; the media stream is `wss://` on it).",
    sameOnEveryInstance: true,
  }),
  OPENAI_API_KEY: setting(text().optional(), {
    description: "OpenAI Realtime key.",
    secret: true,
    sameOnEveryInstance: true,
  }),
  REALTIME_MODEL: setting(text().default("gpt-realtime"), {
    description: "The speech-to-speech model.",
    default: "`gpt-realtime`",
    sameOnEveryInstance: true,
  }),
  DISCLOSURE_SPEECH_MODEL: setting(text().default("gpt-4o-mini-tts"), {
    description: "The text-to-speech model that speaks each call's disclosures word for word (OpenAI `audio/speech`, in the agent's voice) before the Realtime model says anything (docs/compliance.md).",
    default: "`gpt-4o-mini-tts`",
    sameOnEveryInstance: true,
  }),
  OPENAI_BASE_URL: setting(httpUrl().optional(), {
    description: "OpenAI's API base (tests point it at a simulator).",
    default: "`https://api.openai.com/v1`",
    sameOnEveryInstance: true,
  }),
};
