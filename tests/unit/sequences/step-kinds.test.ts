import { describe, expect, it } from "vitest";
import { messageChannels, stepTypes, type MessageChannel, type StepType } from "@/db/schema";
import { ZStepInputSchema, ZStepSchema } from "@/server/schemas/agent";
import { ZSequenceMessageSchema } from "@/server/schemas/message";
import {
  MESSAGE_CHANNEL_LABELS,
  MESSAGE_CHANNEL_OF_STEP,
  MESSAGE_RECIPIENT_OF,
  messageChannelOf,
  STEP_TEMPLATE_FIELDS,
  STEP_TYPE_LABELS,
} from "@/server/services/sequences/step-kinds";

/*
 * Compile-time half (tsc --noEmit checks this file; it is part of `npm test`): each record is keyed by exactly the db
 * constants' types, so one more step type or channel makes it incomplete. Each `@ts-expect-error` below fails the type
 * check if its line ever compiles — e.g. if a record were retyped as `Record<string, …>` or an `if/else`.
 */
type OneMoreStepType = StepType | "WHATSAPP";
type OneMoreChannel = MessageChannel | "whatsapp";

// @ts-expect-error -- a record of step types with one more type is missing a key
export const channelOfOneMore: Record<OneMoreStepType, MessageChannel | null> = MESSAGE_CHANNEL_OF_STEP;
// @ts-expect-error -- same for the template fields
export const templatesOfOneMore: Record<OneMoreStepType, { subject: boolean; body: boolean }> = STEP_TEMPLATE_FIELDS;
// @ts-expect-error -- same for the console's labels
export const labelsOfOneMore: Record<OneMoreStepType, string> = STEP_TYPE_LABELS;
// @ts-expect-error -- a record of channels with one more channel is missing a key
export const channelLabelsOfOneMore: Record<OneMoreChannel, string> = MESSAGE_CHANNEL_LABELS;
// @ts-expect-error -- same for the recipient of each channel
export const recipientOfOneMore: Record<OneMoreChannel, (sequence: { toEmailAddress: string | null; phoneNumber: string }) => string> = MESSAGE_RECIPIENT_OF;
// @ts-expect-error -- a literal record that leaves a step type out does not compile
export const missingStepType: Record<StepType, string> = { CALL: "Call", EMAIL: "Email" };
// @ts-expect-error -- nor one that leaves a channel out
export const missingChannel: Record<MessageChannel, string> = { email: "Email" };

describe("step types and message channels", () => {
  it("builds the API's enums from the db constants", () => {
    expect(ZStepSchema.shape.stepType.options).toEqual([...stepTypes]);
    expect(ZStepInputSchema.shape.stepType.options).toEqual([...stepTypes]);
    expect(ZSequenceMessageSchema.shape.channel.options).toEqual([...messageChannels]);
  });

  it("gives every step type a channel (or none), templates and a label, and every channel a step type", () => {
    expect(Object.keys(MESSAGE_CHANNEL_OF_STEP).sort()).toEqual([...stepTypes].sort());
    expect(Object.keys(STEP_TEMPLATE_FIELDS).sort()).toEqual([...stepTypes].sort());
    expect(Object.keys(STEP_TYPE_LABELS).sort()).toEqual([...stepTypes].sort());
    expect(Object.keys(MESSAGE_CHANNEL_LABELS).sort()).toEqual([...messageChannels].sort());
    expect(Object.keys(MESSAGE_RECIPIENT_OF).sort()).toEqual([...messageChannels].sort());
    expect(stepTypes.map(messageChannelOf).filter((channel) => channel !== null).sort()).toEqual([...messageChannels].sort());
  });

  it("keeps the rules the if/else chains had", () => {
    expect(stepTypes.map((stepType) => [stepType, messageChannelOf(stepType)])).toEqual([
      ["CALL", null],
      ["EMAIL", "email"],
      ["SMS", "sms"],
    ]);
    // A step carries a body exactly when it is a message; only an EMAIL has a subject.
    for (const stepType of stepTypes) expect(STEP_TEMPLATE_FIELDS[stepType].body).toBe(messageChannelOf(stepType) !== null);
    expect(stepTypes.filter((stepType) => STEP_TEMPLATE_FIELDS[stepType].subject)).toEqual(["EMAIL"]);
    const sequence = { toEmailAddress: "ada@example.com", phoneNumber: "+15551230000" };
    expect(MESSAGE_RECIPIENT_OF.email(sequence)).toBe("ada@example.com");
    expect(MESSAGE_RECIPIENT_OF.email({ ...sequence, toEmailAddress: null })).toBe("");
    expect(MESSAGE_RECIPIENT_OF.sms(sequence)).toBe("+15551230000");
  });
});
