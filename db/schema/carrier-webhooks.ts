import { index, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";

/**
 * Carrier webhook events already accepted, by the carrier's own event id (Telnyx: `data.id`), so a delivery replayed
 * within the signature's five minutes' tolerance is refused on every instance (server/carriers/telnyx/verify-webhook.ts).
 * Rows older than the tolerance (and a margin) are pruned as new ones come in: a replay that old is refused as stale.
 */
export const carrierWebhookEvents = pgTable(
  "carrier_webhook_events",
  {
    carrier: text("carrier").notNull(),
    eventId: text("event_id").notNull(),
    receivedAt: timestamp("received_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.carrier, t.eventId] }), index("carrier_webhook_events_received_at_idx").on(t.receivedAt)],
);
