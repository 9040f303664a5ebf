import { index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { agents } from "./agents";
import { organizations } from "./organizations";
import { calls } from "./sequences";

export type CalendarProvider = "chili-piper";

/**
 * An organization's authorization of a scheduling provider (one per provider).
 * `encryptedApiKey` is AES-256-GCM ciphertext (server/crypto); the plaintext key is never stored, returned or logged.
 */
export const providerConnections = pgTable(
  "provider_connections",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id").notNull().references(() => organizations.id, { onDelete: "cascade" }),
    provider: text("provider").$type<CalendarProvider>().notNull(),
    encryptedApiKey: text("encrypted_api_key").notNull(),
    /** First 12 hex chars of SHA-256(key): lets support tell two keys apart without revealing either. */
    keyFingerprint: text("key_fingerprint").notNull(),
    /** The key's last 4 characters, shown masked ("…a1b2") so an admin can match it to the token in Chili Piper; null for keys stored before it existed. */
    keyHint: text("key_hint"),
    /** Permissions the provider granted the key, as read when the connection was made or last checked. */
    permissions: jsonb("permissions").$type<string[]>().notNull(),
    connectedByUserId: text("connected_by_user_id"),
    connectedAt: timestamp("connected_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    permissionsCheckedAt: timestamp("permissions_checked_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex("provider_connections_org_provider_idx").on(t.organizationId, t.provider)],
);

/** `booking`: claimed by a booking attempt in flight; the provider stays the source of truth for the rest. */
export type MeetingStatus = "booking" | "booked" | "failed" | "cancelled";

/**
 * Our local record of the meeting booked during a call (at most one per call; entityId = call ID).
 * The provider is the source of truth: attendee lists are never stored here, and `status` is reconciled from it.
 */
export const meetings = pgTable(
  "meetings",
  {
    callId: text("call_id").primaryKey().references(() => calls.id, { onDelete: "cascade" }),
    organizationId: text("organization_id").notNull().references(() => organizations.id, { onDelete: "cascade" }),
    agentId: text("agent_id").notNull().references(() => agents.id, { onDelete: "cascade" }),
    provider: text("provider").$type<CalendarProvider>().notNull(),
    mode: text("mode").notNull(),
    status: text("status").$type<MeetingStatus>().notNull(),
    bookingUid: text("booking_uid"),
    workspaceId: text("workspace_id"),
    routeId: text("route_id"),
    startTime: timestamp("start_time", { withTimezone: true, mode: "date" }),
    endTime: timestamp("end_time", { withTimezone: true, mode: "date" }),
    hostEmail: text("host_email"),
    meetingLink: text("meeting_link"),
    /** Why the last attempt failed: a machine code (CRM_NO_MATCH, NO_AVAILABILITY, PROVIDER_UNAVAILABLE, …) and text. */
    errorCode: text("error_code"),
    errorMessage: text("error_message"),
    attempts: integer("attempts").notNull().default(0),
    claimedAt: timestamp("claimed_at", { withTimezone: true, mode: "date" }),
    cancelledAt: timestamp("cancelled_at", { withTimezone: true, mode: "date" }),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [
    index("meetings_org_start_idx").on(t.organizationId, t.startTime),
    index("meetings_booking_uid_idx").on(t.provider, t.bookingUid),
  ],
);
