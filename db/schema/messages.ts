import { sql } from "drizzle-orm";
import { index, integer, pgTable, primaryKey, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { agents } from "./agents";
import type { MessageChannel } from "./kinds";
import { organizations } from "./organizations";
import { sequences } from "./sequences";

export type MessageDirection = "outbound" | "inbound";

/**
 * Where an outbound message stands (docs/sequences.md "Message states"):
 * - `scheduled`: waiting for its due time (`nextAttemptAt`);
 * - `sending`: claimed by a sender (at most one; a sender that dies here leaves it `failed` as "interrupted", never
 *   sent a second time);
 * - `sent`: accepted by the SMTP server / the outbox / Twilio; `delivered`, `undelivered`: Twilio's status callbacks (SMS);
 * - `failed`: refused (reason in `error`); retried while `nextAttemptAt` is set, final when it is null;
 * - `bounced`: the mail server reported it undeliverable after accepting it;
 * - `skipped`: not sent (the address or number is suppressed, no address, the sequence ended); the reason in `error`.
 * Inbound messages (SMS replies) are `received`.
 */
export const messageStatuses = ["scheduled", "sending", "sent", "delivered", "undelivered", "failed", "bounced", "skipped", "received"] as const;
export type MessageStatus = (typeof messageStatuses)[number];

/**
 * The EMAIL and SMS steps of sequences, one row per step (created when the step is planned, like a call's record), and
 * the SMS replies received on our numbers (`direction = inbound`, no step).
 */
export const sequenceMessages = pgTable(
  "sequence_messages",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id").notNull().references(() => organizations.id, { onDelete: "cascade" }),
    agentId: text("agent_id").references(() => agents.id, { onDelete: "set null" }),
    /** Null for a reply from a number with no sequence of the organization. */
    sequenceId: text("sequence_id").references(() => sequences.id, { onDelete: "cascade" }),
    /** 1-based position of the step among the sequence's steps; null for inbound messages. */
    stepNumber: integer("step_number"),
    channel: text("channel").$type<MessageChannel>().notNull(),
    direction: text("direction").$type<MessageDirection>().notNull().default("outbound"),
    status: text("status").$type<MessageStatus>().notNull(),
    /** When the step became due (outbound). */
    scheduledAt: timestamp("scheduled_at", { withTimezone: true, mode: "date" }).notNull(),
    /** When a sender should (try to) send it next; null once nothing is left to do. */
    nextAttemptAt: timestamp("next_attempt_at", { withTimezone: true, mode: "date" }),
    attempts: integer("attempts").notNull().default(0),
    toAddress: text("to_address").notNull().default(""),
    fromAddress: text("from_address").notNull().default(""),
    subject: text("subject"),
    body: text("body").notNull().default(""),
    html: text("html"),
    /** The email's Message-ID (fixed before the first attempt: a retry sends the same one) or Twilio's MessageSid. */
    providerMessageId: text("provider_message_id"),
    /** `smtp`, `outbox` (embedded default: kept here, shown in the console) or `twilio`. */
    transport: text("transport"),
    /** The reason of the last failure or of a skip (SMTP reply, Twilio error); null otherwise. */
    error: text("error"),
    errorCode: text("error_code"),
    /** SMS: Twilio's latest reported status (queued, sent, delivered, undelivered, failed), also when it arrives before the send is recorded. */
    providerStatus: text("provider_status"),
    segments: integer("segments"),
    credits: integer("credits").notNull().default(0),
    sentAt: timestamp("sent_at", { withTimezone: true, mode: "date" }),
    deliveredAt: timestamp("delivered_at", { withTimezone: true, mode: "date" }),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("sequence_messages_step_idx").on(t.sequenceId, t.stepNumber).where(sql`direction = 'outbound'`),
    index("sequence_messages_sequence_idx").on(t.sequenceId, t.createdAt),
    // The senders' look-up: messages with something to do, soonest first.
    index("sequence_messages_due_idx").on(t.nextAttemptAt).where(sql`next_attempt_at is not null`),
    index("sequence_messages_provider_idx").on(t.providerMessageId),
    // The console's outbox and message lists: an organization's messages, newest first.
    index("sequence_messages_org_created_idx").on(t.organizationId, t.channel, t.createdAt),
  ],
);

/** How an address got onto the email suppression list: the contact's unsubscribe link, or a bounce. */
export type EmailSuppressionSource = "unsubscribe" | "bounce" | "console";

/** The organization's email suppression list: addresses (lowercase) no email step is sent to. */
export const emailSuppressions = pgTable(
  "email_suppressions",
  {
    organizationId: text("organization_id").notNull().references(() => organizations.id, { onDelete: "cascade" }),
    email: text("email").notNull(),
    source: text("source").$type<EmailSuppressionSource>().notNull(),
    /** The message whose unsubscribe link was used. */
    sourceMessageId: text("source_message_id"),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.email] })],
);
