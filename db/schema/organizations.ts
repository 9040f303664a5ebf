import { boolean, index, integer, pgEnum, pgTable, primaryKey, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";

export const memberRole = pgEnum("member_role", ["admin", "support", "member"]);

export const organizations = pgTable("organizations", {
  id: text("id").primaryKey(),
  /** Identity-provider organization ID (e.g. `org_2x…`): the `orgId` the API and OIDC claims use. */
  orgId: text("org_id").notNull().unique(),
  name: text("name").notNull(),
  monthlyCreditAllocation: integer("monthly_credit_allocation").notNull().default(0),
  /** Organizations on the normalization allowlist may use `titleCaseFields` in bulk enrollment. */
  titleCaseAllowlisted: boolean("title_case_allowlisted").notNull().default(false),
  createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
});

export const users = pgTable("users", {
  id: text("id").primaryKey(),
  email: text("email").notNull().unique(),
  name: text("name").notNull().default(""),
  /** bcrypt hash; null for users who only sign in through OIDC. */
  passwordHash: text("password_hash"),
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
