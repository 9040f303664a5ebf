import { sql } from "drizzle-orm";
import { boolean, index, integer, pgTable, primaryKey, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { organizations } from "./organizations";

/** What a call to one of our numbers gets when no agent takes it (docs/sequences.md "Callbacks"). */
export const callbackFallbackModes = ["message", "forward"] as const;
export type CallbackFallbackMode = (typeof callbackFallbackModes)[number];

/**
 * Settings of one of the organization's numbers (the numbers in its agents' pools). A number without a row gets the
 * defaults: a callback reaches the agent that last called the contact from it, and when none can take it (no agent
 * on duty, an unknown caller) the caller hears the default message.
 */
export const phoneNumberSettings = pgTable(
  "phone_number_settings",
  {
    organizationId: text("organization_id").notNull().references(() => organizations.id, { onDelete: "cascade" }),
    /** Our number, E.164. */
    phoneNumber: text("phone_number").notNull(),
    /** `message`: the caller hears `fallbackMessage` (or the default); a known caller leaves a message; `forward`: the call goes to `forwardTo`. */
    fallbackMode: text("fallback_mode").$type<CallbackFallbackMode>().notNull().default("message"),
    /** The person calls are forwarded to (E.164), for `forward`. */
    forwardTo: text("forward_to"),
    /** What the caller hears first; null: the default naming the organization. */
    fallbackMessage: text("fallback_message"),
    updatedBy: text("updated_by"),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.phoneNumber] })],
);

/** Carriers a number can belong to; its SMS go through its carrier (the simulator's numbers are for the embedded voice simulator only). */
export const numberCarriers = ["twilio", "telnyx", "simulator"] as const;
export type NumberCarrier = (typeof numberCarriers)[number];

/**
 * How the organization got the number (docs/numbers.md):
 * - `purchased`: bought through the app (the carrier's number-ordering API); released = given back to the carrier;
 * - `platform-account`: already in the platform's carrier account, claimed by the organization while nobody owned it;
 * - `verified-caller-id`: the organization's own number, proved by the carrier's validation call: outbound caller ID only;
 * - `migrated`: listed in the organization's pools before numbers were owned (one organization listed it).
 */
export const numberSources = ["purchased", "platform-account", "verified-caller-id", "migrated"] as const;
export type NumberSource = (typeof numberSources)[number];

/**
 * - `active`: the organization's own number; at most one active row per number (unique index);
 * - `disputed`: listed by several organizations before ownership existed: dialed by none until one proves it;
 * - `verifying`: a caller-ID validation call is under way;
 * - `released`: no longer the organization's (kept for history: calls name it).
 */
export const numberStatuses = ["active", "disputed", "verifying", "released"] as const;
export type NumberStatus = (typeof numberStatuses)[number];

/** The number's health (docs/numbers.md "Number health"): `resting` numbers leave the rotation until `restingUntil`. */
export const numberHealthStates = ["healthy", "watch", "resting"] as const;
export type NumberHealthState = (typeof numberHealthStates)[number];

/** The organizations' numbers: who owns which number, how it was obtained, what it can do, and its health. */
export const numbers = pgTable(
  "numbers",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id").notNull().references(() => organizations.id, { onDelete: "cascade" }),
    /** E.164. */
    phoneNumber: text("phone_number").notNull(),
    carrier: text("carrier").$type<NumberCarrier>().notNull(),
    voice: boolean("voice").notNull().default(true),
    sms: boolean("sms").notNull().default(false),
    /** Calls to the number reach the app (false for a verified caller ID: outbound only). */
    inbound: boolean("inbound").notNull().default(true),
    source: text("source").$type<NumberSource>().notNull(),
    status: text("status").$type<NumberStatus>().notNull(),
    /** Why the status is what it is, in words (a dispute, a failed validation, who released it). */
    statusReason: text("status_reason"),
    /** The carrier's identifier (Twilio: the IncomingPhoneNumber or OutgoingCallerId SID). */
    providerSid: text("provider_sid"),
    /** Where the number is from (ISO 3166-2, e.g. `US-NY`), when known. */
    region: text("region"),
    locality: text("locality"),
    /** Calls a day from this number; null: the deployment's default (NUMBER_DAILY_CALL_CAP). */
    dailyCallCap: integer("daily_call_cap"),
    /** Calls dialed from the number on `dialedDay` (UTC), counted by the dialer against the daily cap. */
    dialedDay: text("dialed_day"),
    dialedCount: integer("dialed_count").notNull().default(0),
    health: text("health").$type<NumberHealthState>().notNull().default("healthy"),
    healthReason: text("health_reason"),
    healthChangedAt: timestamp("health_changed_at", { withTimezone: true, mode: "date" }),
    /** A resting number leaves the rotation until then, and comes back under `watch`. */
    restingUntil: timestamp("resting_until", { withTimezone: true, mode: "date" }),
    createdBy: text("created_by"),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    releasedAt: timestamp("released_at", { withTimezone: true, mode: "date" }),
  },
  (t) => [
    // A number belongs to at most one organization at a time.
    uniqueIndex("numbers_active_phone_number").on(t.phoneNumber).where(sql`${t.status} = 'active'`),
    // An organization holds one live row per number (a released one may come back as a new row).
    uniqueIndex("numbers_organization_phone_number").on(t.organizationId, t.phoneNumber).where(sql`${t.status} <> 'released'`),
    index("numbers_phone_number").on(t.phoneNumber),
  ],
);
