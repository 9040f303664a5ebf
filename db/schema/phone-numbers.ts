import { pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";
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
