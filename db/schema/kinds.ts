/*
 * The kinds of sequence steps and of messages, as constants with no drizzle import, so the console's client
 * components can list them too. Each kind is handled through records keyed by these types
 * (server/services/sequences/step-kinds.ts and the others listed in docs/sequences.md "Code"): adding a value here
 * fails to compile wherever it must be handled.
 */

export const stepTypes = ["CALL", "EMAIL", "SMS"] as const;
export type StepType = (typeof stepTypes)[number];

export const messageChannels = ["email", "sms"] as const;
export type MessageChannel = (typeof messageChannels)[number];
