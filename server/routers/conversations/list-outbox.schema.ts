import { z } from "zod";
import { ZSequenceMessageSchema } from "@/server/schemas/message";
import { idText } from "@/server/schemas/text";

export const ZListOutboxRequestSchema = z.object({
  cursor: idText().optional().describe("The `nextCursor` of the previous page: older emails."),
  limit: z.number().int().min(1).max(100).optional().describe("Emails per page, 1 to 100 (default 25)."),
});

export const ZOutboxEmailSchema = ZSequenceMessageSchema.extend({
  sequenceId: z.string().nullable(),
  contactName: z.string().nullable(),
  agentName: z.string().nullable(),
  html: z.string().nullable().describe("The rendered HTML part (escaped text, links, the unsubscribe footer)."),
  transport: z.string().nullable().describe("`outbox`: kept here, nothing left the server; `smtp`: sent through SMTP_URL."),
});

export const ZListOutboxResponseSchema = z.object({
  emails: z.array(ZOutboxEmailSchema).describe("Emails of sequences, newest first: what was (or, with the outbox, would have been) sent."),
  smtpConfigured: z.boolean().describe("SMTP_URL is set: emails are sent; otherwise they stay in the outbox."),
  nextCursor: z.string().nullable(),
});
