import { sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { callEvents } from "@/db/schema";

export type RecordNumberHealthEventParams = {
  organizationId: string;
  /** `evt_<ulid>`: the event's `id` in the feed and the `webhook-id` of its deliveries. */
  eventId: string;
  /** The event's data, frozen now (the feed and every delivery carry these bytes). */
  body: string;
  now: Date;
};

/**
 * Puts a `number.health_changed` event into the organization's events feed, once per event ID (the feed's unique
 * (call_id, type): `call_id` holds the event ID; `agent_id` is empty, a number belongs to no one agent). Under the
 * feed's per-organization advisory lock, like call results (record-call-result-event.ts), so positions become visible
 * in commit order.
 */
export async function recordNumberHealthEvent(db: DbOrTx, params: RecordNumberHealthEventParams): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`call-events:${params.organizationId}`}, 0))`);
    await tx
      .insert(callEvents)
      .values({
        organizationId: params.organizationId,
        agentId: "",
        callId: params.eventId,
        type: "number.health_changed",
        messageId: params.eventId,
        body: params.body,
        createdAt: params.now,
      })
      .onConflictDoNothing({ target: [callEvents.callId, callEvents.type] });
  });
}
