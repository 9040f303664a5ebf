import { bigserial, index, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { organizations } from "./organizations";

export const feedEventTypes = [
  "call.result",
  "email.sent",
  "email.failed",
  "email.unsubscribed",
  "email.skipped",
  "sms.sent",
  "sms.delivered",
  "sms.failed",
  "sms.received",
  "sms.skipped",
  "number.health_changed",
] as const;
/**
 * `call.result` (one per analysed call), the message events (docs/sequences.md "Events") and
 * `number.health_changed` (one per change of a number's health, docs/numbers.md "Number health").
 */
export type CallEventType = (typeof feedEventTypes)[number];

/**
 * The events feed (GET /api/v1/events): one row per analysed call, written when `call/analyzed` is consumed, whether
 * or not the organization has a webhook endpoint. `body` is the exact call-result webhook body (the deliveries of the
 * call send these bytes); `messageId` is their `webhook-id`. Kept 30 days (call-event-retention).
 *
 * `position` orders the feed. Rows of one organization are inserted under a transaction-scoped advisory lock on the
 * organization, so positions become visible in commit order: a reader never sees position n+1 before n, and a cursor
 * (the last position read) never skips an event that commits later.
 */
export const callEvents = pgTable(
  "call_events",
  {
    position: bigserial("position", { mode: "number" }).primaryKey(),
    organizationId: text("organization_id").notNull().references(() => organizations.id, { onDelete: "cascade" }),
    agentId: text("agent_id").notNull(),
    /** No foreign key: the event outlives a deleted call for its 30 days. Message events: the message's ID. */
    callId: text("call_id").notNull(),
    type: text("type").$type<CallEventType>().notNull(),
    messageId: text("message_id").notNull(),
    body: text("body").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("call_events_call_idx").on(t.callId, t.type),
    index("call_events_org_position_idx").on(t.organizationId, t.position),
    index("call_events_org_agent_position_idx").on(t.organizationId, t.agentId, t.position),
    index("call_events_created_idx").on(t.createdAt),
  ],
);
