export { startTwilioSimulator, type StartTwilioSimulatorOptions, type TwilioSimulator } from "./server";
export { twilioSignature } from "./signing";
export type { SentCallback, SimCall } from "./call";
export type { SimMessage, SimMessaging, SentMessageCallback } from "./messages";
export { SimNumberNotInServiceError, type AccountNumberOptions, type SimIncomingNumber } from "./numbers";
export { VALIDATION_CALLER, type CallerIdValidationOutcome, type SimCallerId, type SimCallerIdValidation } from "./caller-ids";
export type { AnswerRateOptions } from "./answer-rate";
