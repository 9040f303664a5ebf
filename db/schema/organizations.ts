import { sql } from "drizzle-orm";
import { boolean, index, integer, jsonb, pgEnum, pgTable, primaryKey, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";

export const memberRole = pgEnum("member_role", ["admin", "support", "member"]);
/** A member's role in an organization: admin (everything), support (conversations, recordings, meetings), member (read-only). */
export type MemberRole = (typeof memberRole.enumValues)[number];

export const organizations = pgTable("organizations", {
  id: text("id").primaryKey(),
  /** Identity-provider organization ID (e.g. `org_2x…`): the `orgId` the API and OIDC claims use. */
  orgId: text("org_id").notNull().unique(),
  name: text("name").notNull(),
  monthlyCreditAllocation: integer("monthly_credit_allocation").notNull().default(0),
  /** Organizations on the normalization allowlist may use `titleCaseFields` in bulk enrollment. */
  titleCaseAllowlisted: boolean("title_case_allowlisted").notNull().default(false),
  /** Calls per second this organization may dial (all its agents together); null = CALL_DIAL_RATE_PER_SECOND. */
  dialRatePerSecond: integer("dial_rate_per_second"),
  /** Calls of the whole organization in the air at once; null = no organization limit. */
  maxConcurrentCalls: integer("max_concurrent_calls"),
  /** Enrollment requires a consent record per contact (400 / per-contact MISSING_CONSENT without one). */
  requireConsent: boolean("require_consent").notNull().default(false),
  /** Sender of sequence emails, e.g. `Acme Sales <sales@acme.example>`; null = MAIL_FROM (docs/sequences.md). */
  emailFrom: text("email_from"),
  /** Reply-To of sequence emails; null = none (replies go to the From address). */
  emailReplyTo: text("email_reply_to"),
  /** The answer to an SMS `HELP`; null = a default naming the organization. */
  smsHelpText: text("sms_help_text"),
  /** Redaction (docs/compliance.md): the built-in categories removed from transcripts, analysis, webhooks and recordings. */
  redactionCategories: jsonb("redaction_categories").$type<string[]>().notNull().default(sql`'["card","ssn","bank-account","routing-number","date-of-birth","email","phone"]'::jsonb`),
  /** The organization's own patterns: `{name, pattern}` (a JavaScript regular expression, matched case-insensitively). */
  redactionPatterns: jsonb("redaction_patterns").$type<Array<{ name: string; pattern: string }>>().notNull().default(sql`'[]'::jsonb`),
  /** Days recordings, transcripts and analysis are kept after a call ended (1–730); null = no organization limit. */
  retentionDays: integer("retention_days"),
  /** False: no recording is kept at all ("do not keep"); the real engine does not even ask Twilio to record. */
  keepRecordings: boolean("keep_recordings").notNull().default(true),
  createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
});

export const users = pgTable("users", {
  id: text("id").primaryKey(),
  email: text("email").notNull().unique(),
  name: text("name").notNull().default(""),
  /** bcrypt hash; null for users who only sign in through OIDC. */
  passwordHash: text("password_hash"),
  /**
   * Carried in every session JWT and compared on each request: bumped on sign-out, password change and removal from an
   * organization, so every session issued before is refused from then on (server/auth/session-version.ts).
   */
  sessionVersion: integer("session_version").notNull().default(1),
  createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
});

export const memberships = pgTable(
  "memberships",
  {
    organizationId: text("organization_id").notNull().references(() => organizations.id, { onDelete: "cascade" }),
    userId: text("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    role: memberRole("role").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.userId] }), index("memberships_user_idx").on(t.userId)],
);

export const apiKeys = pgTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id").notNull().references(() => organizations.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    /** The visible start of the key (`ock_` + 8 chars); unique, used to find the row before the hash comparison. */
    prefix: text("prefix").notNull(),
    /** SHA-256 of the whole key, hex. The key itself is never stored. */
    keyHash: text("key_hash").notNull(),
    createdByUserId: text("created_by_user_id"),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    lastUsedAt: timestamp("last_used_at", { withTimezone: true, mode: "date" }),
    revokedAt: timestamp("revoked_at", { withTimezone: true, mode: "date" }),
  },
  (t) => [uniqueIndex("api_keys_prefix_idx").on(t.prefix), index("api_keys_org_idx").on(t.organizationId)],
);

export const invitationChannel = pgEnum("invitation_channel", ["email", "link"]);

/**
 * An invitation to join an organization with a role. The link's token is stored only as a SHA-256 hash; the link is
 * single-use and expires. Nobody is a member until the invitee accepts while signed in as the invited address (or
 * creates that account through the link). `channel` records how the current token was handed out: "link" means the
 * inviting admin saw it (no SMTP configured).
 */
export const invitations = pgTable(
  "invitations",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id").notNull().references(() => organizations.id, { onDelete: "cascade" }),
    /** Lowercased. */
    email: text("email").notNull(),
    /** Suggested display name for a new account. */
    name: text("name").notNull().default(""),
    role: memberRole("role").notNull(),
    tokenHash: text("token_hash").notNull(),
    channel: invitationChannel("channel").notNull(),
    invitedByUserId: text("invited_by_user_id").references(() => users.id, { onDelete: "set null" }),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    /** When the current token was issued (invite or resend). */
    sentAt: timestamp("sent_at", { withTimezone: true, mode: "date" }).notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }).notNull(),
    acceptedAt: timestamp("accepted_at", { withTimezone: true, mode: "date" }),
    acceptedByUserId: text("accepted_by_user_id").references(() => users.id, { onDelete: "set null" }),
    revokedAt: timestamp("revoked_at", { withTimezone: true, mode: "date" }),
  },
  (t) => [
    uniqueIndex("invitations_token_hash_idx").on(t.tokenHash),
    // At most one open invitation per address and organization.
    uniqueIndex("invitations_open_email_idx").on(t.organizationId, t.email).where(sql`accepted_at is null and revoked_at is null`),
    index("invitations_org_idx").on(t.organizationId, t.createdAt),
  ],
);
