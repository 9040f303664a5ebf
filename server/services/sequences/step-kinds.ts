import type { MessageChannel, StepType } from "@/db/schema/kinds";

/*
 * What each step type and message channel is, as records keyed by the db constants (db/schema/kinds.ts): a new step
 * type or channel fails to compile here, and in the other records of docs/sequences.md "Code", until it is handled.
 * No database or server import: the console's client components use these too.
 */

/** The channel of each step type: EMAIL and SMS steps are messages, a CALL step places a call (null). */
export const MESSAGE_CHANNEL_OF_STEP: Record<StepType, MessageChannel | null> = {
  CALL: null,
  EMAIL: "email",
  SMS: "sms",
};

/** The templates a step type carries (docs/sequences.md "Templates"): both are required where true. */
export const STEP_TEMPLATE_FIELDS: Record<StepType, { subject: boolean; body: boolean }> = {
  CALL: { subject: false, body: false },
  EMAIL: { subject: true, body: true },
  SMS: { subject: false, body: true },
};

/** A step type's name in the console. */
export const STEP_TYPE_LABELS: Record<StepType, string> = {
  CALL: "Call",
  EMAIL: "Email",
  SMS: "SMS",
};

/** A channel's name in the console and in ledger lines. */
export const MESSAGE_CHANNEL_LABELS: Record<MessageChannel, string> = {
  email: "Email",
  sms: "SMS",
};

export type MessageRecipientSource = { toEmailAddress: string | null; phoneNumber: string };

/** Where a message of each channel goes, from its sequence: the contact's email address (empty if none), or the number called. */
export const MESSAGE_RECIPIENT_OF: Record<MessageChannel, (sequence: MessageRecipientSource) => string> = {
  email: (sequence) => sequence.toEmailAddress ?? "",
  sms: (sequence) => sequence.phoneNumber,
};

/** The channel of a step that is a message (EMAIL, SMS); null for a CALL. */
export function messageChannelOf(stepType: StepType): MessageChannel | null {
  return MESSAGE_CHANNEL_OF_STEP[stepType];
}
