import { z } from "zod";
import { messageChannels, messageStatuses } from "@/db/schema";

/** An EMAIL or SMS step of a sequence, or an SMS reply (additive to the call objects: docs/sequences.md). */
export const ZSequenceMessageSchema = z
  .object({
    messageId: z.string().describe("Format `message.<id>`."),
    channel: z.enum(messageChannels),
    direction: z.enum(["outbound", "inbound"]).describe("`outbound`: a step of the sequence; `inbound`: an SMS reply from the contact."),
    stepNumber: z.number().int().nullable().describe("Position of the step in the sequence (null for replies)."),
    status: z.enum(messageStatuses).describe("scheduled, sending, sent, delivered, undelivered, failed, bounced, skipped (outbound); received (inbound)."),
    to: z.string(),
    from: z.string(),
    subject: z.string().nullable().describe("EMAIL: the rendered subject."),
    body: z.string().describe("The rendered text (empty until sent)."),
    segments: z.number().int().nullable().describe("SMS: segments sent."),
    credits: z.number().int().describe("Credits charged for it."),
    providerMessageId: z.string().nullable().describe("The email's Message-ID or Twilio's MessageSid."),
    error: z.string().nullable().describe("Why it failed or was skipped."),
    errorCode: z.string().nullable().describe("SMTP reply code or Twilio error code."),
    attempts: z.number().int(),
    scheduledAt: z.string().describe("When the step was due (ISO 8601); the time received for replies."),
    sentAt: z.string().nullable(),
    deliveredAt: z.string().nullable(),
  })
  .describe("A message of a sequence.");
export type TSequenceMessage = z.infer<typeof ZSequenceMessageSchema>;
