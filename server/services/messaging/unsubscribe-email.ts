import { eq } from "drizzle-orm";
import type { Db } from "@/db";
import { emailSuppressions, sequenceMessages } from "@/db/schema";
import { getLogger } from "@/server/observability/logger";
import { recordMessageEvent } from "@/server/services/events/record-message-event";
import { announceSkippedMessages, endSequencesOfContact } from "@/server/services/sequences/end-sequences-of-contact";
import { verifyUnsubscribeToken } from "./unsubscribe-token";

export type UnsubscribeOutcome = { status: "unsubscribed" | "already" | "invalid"; email?: string; endedSequenceIds?: string[] };

/**
 * The one-click unsubscribe of an email (RFC 8058: a POST to the List-Unsubscribe URL; the page's button too). The
 * signed token names the email, hence the organization and the address: the address goes on the organization's email
 * suppression list (later EMAIL steps to it are skipped and recorded as such), the contact's sequences still in
 * progress end `done` with their steps not started recorded as skipped (an opt-out on any channel ends them), and
 * `email.unsubscribed` (and each skipped message's `<channel>.skipped`) enters the events feed. A token
 * this server did not sign changes nothing. Repeating it is harmless.
 */
export async function unsubscribeEmail(db: Db, params: { token: string; now: Date }): Promise<UnsubscribeOutcome> {
  const messageId = verifyUnsubscribeToken(params.token);
  if (!messageId) return { status: "invalid" };
  const [message] = await db.select().from(sequenceMessages).where(eq(sequenceMessages.id, messageId)).limit(1);
  if (!message || message.channel !== "email" || !message.toAddress) return { status: "invalid" };
  const email = message.toAddress.toLowerCase();
  const { added, ended } = await db.transaction(async (tx) => {
    const added = await tx
      .insert(emailSuppressions)
      .values({ organizationId: message.organizationId, email, source: "unsubscribe", sourceMessageId: message.id, createdAt: params.now })
      .onConflictDoNothing()
      .returning({ email: emailSuppressions.email });
    const ended = await endSequencesOfContact(tx, { organizationId: message.organizationId, email, now: params.now, reason: "the contact unsubscribed from emails" });
    return { added: added.length > 0, ended };
  });
  if (added) {
    await recordMessageEvent(db, { type: "email.unsubscribed", message, now: params.now });
    getLogger("sequence-messages").info({ messageId, ended: ended.length }, "email address unsubscribed");
  }
  await announceSkippedMessages(db, { sequenceIds: ended, now: params.now });
  return { status: added ? "unsubscribed" : "already", email, endedSequenceIds: ended };
}
