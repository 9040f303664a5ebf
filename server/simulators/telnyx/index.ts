/** The Telnyx simulator (docs/telnyx-simulator.md): Call Control v2, media streaming, messaging and numbers. */
export { startTelnyxSimulator, type StartTelnyxSimulatorOptions, type TelnyxSimulator } from "./server";
export type { AmdOverride, HangupCause, TelnyxCall, TelnyxRecording } from "./call";
export type { SentWebhook } from "./webhooks";
export { telnyxSignature } from "./signing";
