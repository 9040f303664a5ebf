export { startTwilioSimulator, type StartTwilioSimulatorOptions, type TwilioSimulator } from "./server";
export { twilioSignature } from "./signing";
export type { SentCallback, SimCall } from "./call";
