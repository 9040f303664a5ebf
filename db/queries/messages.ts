import { and, asc, eq, inArray } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { sequenceMessages } from "@/db/schema";
import type { TSequenceMessage } from "@/server/schemas/message";

type MessageRow = typeof sequenceMessages.$inferSelect;

export function toSequenceMessage(row: MessageRow): TSequenceMessage {
  return {
    messageId: row.id,
    channel: row.channel,
    direction: row.direction,
    stepNumber: row.stepNumber,
    status: row.status,
    to: row.toAddress,
    from: row.fromAddress,
    subject: row.subject,
    body: row.body,
    segments: row.segments,
    credits: row.credits,
    providerMessageId: row.providerMessageId,
    error: row.error,
    errorCode: row.errorCode,
    attempts: row.attempts,
    scheduledAt: row.scheduledAt.toISOString(),
    sentAt: row.sentAt?.toISOString() ?? null,
    deliveredAt: row.deliveredAt?.toISOString() ?? null,
  };
}

/** The messages of sequences of the organization, in order of creation (steps and replies interleaved as they came). */
export async function findSequenceMessages(db: DbOrTx, params: { organizationId: string; sequenceIds: string[] }): Promise<MessageRow[]> {
  if (params.sequenceIds.length === 0) return [];
  return db
    .select()
    .from(sequenceMessages)
    .where(and(eq(sequenceMessages.organizationId, params.organizationId), inArray(sequenceMessages.sequenceId, params.sequenceIds)))
    // A sequence's steps are created together (one timestamp) and ids are not ordered within a millisecond: the step
    // number keeps them in the sequence's order (inbound replies, with none, after the steps of their moment).
    .orderBy(asc(sequenceMessages.createdAt), asc(sequenceMessages.stepNumber), asc(sequenceMessages.id));
}
