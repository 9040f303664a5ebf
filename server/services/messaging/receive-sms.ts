import { and, desc, eq, sql } from "drizzle-orm";
import type { Db } from "@/db";
import { agents, optOuts, organizations, sequenceMessages, sequences } from "@/db/schema";
import { findActiveNumber } from "@/db/queries/numbers";
import { getLogger } from "@/server/observability/logger";
import { maskPhoneNumber } from "@/server/observability/redact";
import { recordMessageEvent } from "@/server/services/events/record-message-event";
import { recordNumberStop } from "@/server/services/numbers/health/record-number-stats";
import { announceSkippedMessages, endSequencesOfContact } from "@/server/services/sequences/end-sequences-of-contact";
import { newMessageId } from "@/server/services/sequences/message-steps";
import { defaultHelpText, readSmsKeyword, START_CONFIRMATION, STOP_CONFIRMATION, type SmsKeyword, type SmsOptOutHandling } from "./sms-keywords";

export type ReceiveSmsParams = {
  from: string;
  to: string;
  body: string;
  providerMessageId: string;
  /** Twilio's `OptOutType` (STOP, START, HELP): the keyword was handled and answered by Advanced Opt-Out. */
  optOutType?: string | null;
  /** Who answers keywords on our numbers (SMS_OPT_OUT_HANDLING). */
  optOutHandling: SmsOptOutHandling;
  /** The carrier that delivered it (recorded as the message's transport); default `twilio`. */
  carrier?: "twilio" | "telnyx";
  now: Date;
};
export type ReceiveSmsOutcome = { organizationId: string | null; messageId: string | null; keyword: SmsKeyword; reply: string | null; endedSequenceIds: string[] };

/**
 * An SMS to one of our numbers (Twilio's inbound webhook, signature verified by the caller). The organization is the
 * one that owns the number (an SMS to a number nobody owns is ignored, no reply); the sequence, its latest with the
 * sender from that number.
 * The reply is stored on the sender's latest sequence of that organization and put in the events feed
 * (`sms.received`); then, at once:
 * - STOP and its variants: the number goes on the organization's suppression list (source `sms`), every sequence of
 *   the contact still in progress ends `done` with its remaining steps skipped, and the confirmation is the answer;
 * - START: an opt-out made by SMS is lifted (one made on a call, through the API or the console stays: the contact did
 *   not give that one by text), the re-subscription notice is the answer;
 * - HELP: the organization's help text is the answer;
 * - anything else: when the agent of the sequence has "a reply ends the sequence", that sequence ends `done`.
 * A keyword's answer is returned (for the webhook's TwiML) only when Twilio did not answer it itself
 * (readSmsKeyword): the contact gets exactly one answer. Duplicate webhooks (the same MessageSid) are stored once.
 */
export async function receiveSms(db: Db, params: ReceiveSmsParams): Promise<ReceiveSmsOutcome> {
  const { now } = params;
  const { keyword, answeredByTwilio } = readSmsKeyword({ body: params.body, optOutType: params.optOutType, handling: params.optOutHandling });
  const [duplicate] = await db.select({ id: sequenceMessages.id }).from(sequenceMessages).where(and(eq(sequenceMessages.providerMessageId, params.providerMessageId), eq(sequenceMessages.direction, "inbound"))).limit(1);
  if (duplicate) return { organizationId: null, messageId: duplicate.id, keyword, reply: null, endedSequenceIds: [] };

  // Trust boundary: the number's owner is the only organization whose data this SMS may read or write (docs/numbers.md).
  const owner = await findActiveNumber(db, params.to);
  if (!owner?.inbound) {
    getLogger("sequence-messages").warn({ to: params.to }, "an SMS reached a number no organization owns; ignored, no reply");
    return { organizationId: null, messageId: null, keyword, reply: null, endedSequenceIds: [] };
  }
  const organizationId = owner.organizationId;
  const [latest] = await db
    .select({ sequence: sequences, replyEndsSequence: agents.replyEndsSequence })
    .from(sequences)
    .innerJoin(agents, eq(agents.id, sequences.agentId))
    .where(and(eq(sequences.organizationId, organizationId), eq(sequences.phoneNumber, params.from), sql`${agents.phoneNumbers} @> ${JSON.stringify([params.to])}::jsonb`))
    .orderBy(desc(sequences.updatedAt))
    .limit(1);
  const sequence = latest?.sequence ?? null;
  const [organization] = await db.select({ name: organizations.name, smsHelpText: organizations.smsHelpText }).from(organizations).where(eq(organizations.id, organizationId)).limit(1);

  const { message, ended, reply } = await db.transaction(async (tx) => {
    const [message] = await tx
      .insert(sequenceMessages)
      .values({
        id: newMessageId(),
        organizationId,
        agentId: sequence?.agentId ?? null,
        sequenceId: sequence?.id ?? null,
        stepNumber: null,
        channel: "sms",
        direction: "inbound",
        status: "received",
        scheduledAt: now,
        toAddress: params.to,
        fromAddress: params.from,
        body: params.body.slice(0, 5_000),
        providerMessageId: params.providerMessageId,
        transport: params.carrier ?? "twilio",
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    let ended: string[] = [];
    let reply: string | null = null;
    if (keyword === "stop") {
      await tx.insert(optOuts).values({ organizationId, phoneNumber: params.from, source: "sms", reason: `Replied "${params.body.trim().slice(0, 40)}" by SMS`, createdAt: now }).onConflictDoNothing();
      ended = await endSequencesOfContact(tx, { organizationId, phoneNumber: params.from, now, reason: "the contact opted out by SMS" });
      // A STOP counts against the number it was sent to (docs/numbers.md "Number health").
      await recordNumberStop(tx, { organizationId, phoneNumber: params.to, now });
      reply = STOP_CONFIRMATION;
    } else if (keyword === "start") {
      await tx.delete(optOuts).where(and(eq(optOuts.organizationId, organizationId), eq(optOuts.phoneNumber, params.from), eq(optOuts.source, "sms")));
      reply = START_CONFIRMATION;
    } else if (keyword === "help") {
      reply = organization?.smsHelpText?.trim() || defaultHelpText(organization?.name ?? "This service");
    } else if (sequence && latest?.replyEndsSequence) {
      ended = await endSequencesOfContact(tx, { organizationId, sequenceIds: [sequence.id], now, reason: "the contact replied by SMS" });
    }
    return { message: message!, ended, reply: answeredByTwilio ? null : reply };
  });
  await recordMessageEvent(db, { type: "sms.received", message, now, extra: { keyword } });
  await announceSkippedMessages(db, { sequenceIds: ended, now });
  getLogger("sequence-messages").info({ from: maskPhoneNumber(params.from), keyword, answeredBy: keyword ? (answeredByTwilio ? "twilio" : "app") : null, ended: ended.length }, "SMS received");
  return { organizationId, messageId: message.id, keyword, reply, endedSequenceIds: ended };
}

/** Twilio's delivery states as our message statuses (https://www.twilio.com/docs/messaging/api/message-resource#message-status-values). */
const DELIVERY_STATUSES: Record<string, "sent" | "delivered" | "undelivered" | "failed"> = {
  sent: "sent",
  delivered: "delivered",
  undelivered: "undelivered",
  failed: "failed",
};

/**
 * A signed status callback of an outbound SMS: `delivered`, `undelivered` or `failed` (with Twilio's ErrorCode)
 * recorded on the message, and `sms.delivered` / `sms.failed` in the events feed (once each). A callback about another
 * MessageSid than the one Twilio gave us for this message changes nothing. Never moves a final state back.
 */
export async function applySmsStatusCallback(db: Db, params: { messageId: string; messageSid: string; status: string; errorCode: string | null; now: Date; carrier?: "Twilio" | "Telnyx" }): Promise<"applied" | "ignored"> {
  const { now } = params;
  const status = DELIVERY_STATUSES[params.status];
  if (!status) return "ignored";
  const applied = await db.transaction(async (tx) => {
    const [message] = await tx.select().from(sequenceMessages).where(eq(sequenceMessages.id, params.messageId)).for("update");
    if (!message || message.channel !== "sms" || message.direction !== "outbound") return null;
    // The callback may come before the sender recorded Twilio's answer (the MessageSid): then it binds it, and the
    // sender's result takes the reported state (send-sequence-message.ts).
    const racing = message.status === "sending" && message.providerMessageId === null;
    if (!racing && message.providerMessageId !== params.messageSid) return null;
    if (message.providerStatus && message.providerStatus !== "sent" && message.providerStatus !== "queued") return null; // final already
    const final = status !== "sent";
    const [updated] = await tx
      .update(sequenceMessages)
      .set({
        providerStatus: status,
        providerMessageId: params.messageSid,
        ...(final && !racing ? { status } : {}),
        ...(status === "delivered" ? { deliveredAt: now } : {}),
        ...(status === "undelivered" || status === "failed" ? { errorCode: params.errorCode, error: `${params.carrier ?? "Twilio"} reported the message ${status}${params.errorCode ? ` (error ${params.errorCode})` : ""}.` } : {}),
        updatedAt: now,
      })
      .where(eq(sequenceMessages.id, message.id))
      .returning();
    return final && !racing ? updated! : null;
  });
  if (!applied) return "ignored";
  await recordMessageEvent(db, { type: applied.status === "delivered" ? "sms.delivered" : "sms.failed", message: applied, now });
  return "applied";
}
