import { and, eq, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { callEvents } from "@/db/schema";

export type RecordCallResultEventParams = {
  organizationId: string;
  agentId: string;
  callId: string;
  /** `webhook-id` of the call's deliveries. */
  messageId: string;
  /** The call-result webhook body, frozen now. */
  body: string;
  now: Date;
};

/**
 * Puts a call's result into the events feed, once: a repeated `call/analyzed` (or a retried step) finds the first row
 * and returns its body, so the feed and every webhook delivery of the call carry the same bytes.
 *
 * Invariant the feed's cursor relies on: rows of one organization become visible in `position` order. The insert
 * takes a transaction-scoped advisory lock on the organization, so the next insert of that organization can only draw
 * its position after this one has committed (a reader never sees position n+1 without n).
 */
export async function recordCallResultEvent(db: DbOrTx, params: RecordCallResultEventParams): Promise<{ body: string }> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`call-events:${params.organizationId}`}, 0))`);
    const inserted = await tx
      .insert(callEvents)
      .values({
        organizationId: params.organizationId,
        agentId: params.agentId,
        callId: params.callId,
        type: "call.result",
        messageId: params.messageId,
        body: params.body,
        createdAt: params.now,
      })
      .onConflictDoNothing({ target: [callEvents.callId, callEvents.type] })
      .returning({ body: callEvents.body });
    if (inserted[0]) return inserted[0];
    const [existing] = await tx
      .select({ body: callEvents.body })
      .from(callEvents)
      .where(and(eq(callEvents.callId, params.callId), eq(callEvents.type, "call.result")));
    return existing ?? { body: params.body };
  });
}
