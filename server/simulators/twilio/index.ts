export { startTwilioSimulator, type StartTwilioSimulatorOptions, type TwilioSimulator } from "./server";
export { twilioSignature } from "./signing";
export type { SentCallback, SimCall } from "./call";
export type { SimMessage, SimMessaging, SentMessageCallback } from "./messages";
