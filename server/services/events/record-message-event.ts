import { sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { callEvents, type CallEventType, type sequenceMessages } from "@/db/schema";

type MessageRow = typeof sequenceMessages.$inferSelect;
export type MessageEventType = Exclude<CallEventType, "call.result">;

/** The `data` of a message event in the feed (docs/sequences.md "Events"). */
export function messageEventData(message: MessageRow) {
  return {
    messageId: message.id,
    channel: message.channel,
    direction: message.direction,
    status: message.status,
    agentId: message.agentId,
    sequenceId: message.sequenceId,
    stepNumber: message.stepNumber,
    to: message.toAddress,
    from: message.fromAddress,
    subject: message.subject,
    body: message.body,
    segments: message.segments,
    credits: message.credits,
    providerMessageId: message.providerMessageId,
    error: message.error,
    errorCode: message.errorCode,
    scheduledAt: message.scheduledAt.toISOString(),
    sentAt: message.sentAt?.toISOString() ?? null,
    deliveredAt: message.deliveredAt?.toISOString() ?? null,
  };
}

/**
 * Puts a message event into the organization's events feed (GET /events), at most once per message and type (the
 * feed's unique (call_id, type): `call_id` holds the message ID). Under the feed's per-organization advisory lock,
 * like call results (record-call-result-event.ts), so positions become visible in commit order.
 */
export async function recordMessageEvent(db: DbOrTx, params: { type: MessageEventType; message: MessageRow; now: Date; extra?: Record<string, unknown> }): Promise<void> {
  const { message } = params;
  await db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`call-events:${message.organizationId}`}, 0))`);
    await tx
      .insert(callEvents)
      .values({
        organizationId: message.organizationId,
        agentId: message.agentId ?? "",
        callId: message.id,
        type: params.type,
        messageId: `evt_${message.id.replace(/^message\./, "")}_${params.type.replace(".", "_")}`,
        body: JSON.stringify({ ...messageEventData(message), ...params.extra }),
        createdAt: params.now,
      })
      .onConflictDoNothing({ target: [callEvents.callId, callEvents.type] });
  });
}
