import { z } from "zod";
import { callbackFallbackModes } from "@/db/schema";
import { smsOptOutHandlings } from "@/server/services/messaging/sms-keywords";

export const ZPhoneNumberSettingsSchema = z.object({
  phoneNumber: z.string().describe("One of the organization's numbers (in an agent's pool), E.164."),
  agentNames: z.array(z.string()).describe("The agents whose pool holds it."),
  fallbackMode: z.enum(callbackFallbackModes).describe("When no agent takes a call to it: `message` (the caller hears the message; a known caller leaves theirs, kept on their sequence) or `forward` (to `forwardTo`)."),
  forwardTo: z.string().nullable().describe("The person calls are forwarded to (E.164), for `forward`."),
  fallbackMessage: z.string().nullable().describe("What the caller hears first; null: the default naming the organization."),
});

export const ZMessagingSettingsSchema = z.object({
  emailFrom: z.string().nullable().describe("From of sequence emails (`Name <address>` or an address); null: the server's MAIL_FROM."),
  emailReplyTo: z.string().nullable().describe("Reply-To of sequence emails; null: none."),
  smsHelpText: z.string().nullable().describe("The answer to an SMS HELP; null: the default naming the organization."),
  defaultSmsHelpText: z.string().describe("What HELP is answered with while smsHelpText is null."),
  smsOptOutHandling: z
    .enum(smsOptOutHandlings)
    .describe(
      "Who answers STOP, START and HELP texts (the server's SMS_OPT_OUT_HANDLING): `twilio-default` — Twilio answers them itself, so the help text is not sent; `advanced-opt-out` — the Messaging Service's Advanced Opt-Out answers its keywords, the help text answers the other help words; `app` — the app answers every keyword, HELP with the help text.",
    ),
  defaultFallbackMessage: z.string().describe("What a caller hears while a number has no fallback message."),
  phoneNumbers: z.array(ZPhoneNumberSettingsSchema).describe("The organization's numbers and what a call to each gets when no agent takes it."),
});
export type TMessagingSettings = z.infer<typeof ZMessagingSettingsSchema>;

export const ZGetMessagingSettingsRequestSchema = z.object({}).optional();
export const ZGetMessagingSettingsResponseSchema = ZMessagingSettingsSchema;

const optionalText = (max: number, description: string) => z.string().max(max, `at most ${max} characters`).nullable().optional().describe(description);

export const ZUpdateMessagingSettingsRequestSchema = z.object({
  emailFrom: optionalText(320, "`Name <address>` or an address; null or empty: MAIL_FROM; left out: unchanged."),
  emailReplyTo: optionalText(320, "An address; null or empty: none; left out: unchanged."),
  smsHelpText: optionalText(480, "1–3 SMS segments that say how to opt out (STOP); null or empty: the default; left out: unchanged."),
});
export const ZUpdateMessagingSettingsResponseSchema = ZMessagingSettingsSchema;

export const ZUpdatePhoneNumberSettingsRequestSchema = z.object({
  phoneNumber: z.string().min(1).max(40).describe("One of the organization's numbers."),
  fallbackMode: z.enum(callbackFallbackModes),
  forwardTo: z.string().max(40).nullable().optional().describe("E.164; required for `forward`."),
  fallbackMessage: z.string().max(500, "at most 500 characters").nullable().optional(),
});
export const ZUpdatePhoneNumberSettingsResponseSchema = ZMessagingSettingsSchema;
