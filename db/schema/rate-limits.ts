import { bigint, boolean, index, integer, pgTable, text, timestamp } from "drizzle-orm/pg-core";

/** Fixed-window counters of rate-limiter-flexible's Drizzle store (kept for limiters that use that library's store). */
export const rateLimits = pgTable("rate_limits", {
  key: text("key").primaryKey(),
  points: integer("points").notNull().default(0),
  expire: timestamp("expire", { withTimezone: true, mode: "date" }),
});

/**
 * The `/api/v1` per-key limit shared by every instance (`RATE_LIMIT_STORE=postgres`): one row per limited subject
 * holding the times (epoch ms) of the requests it was allowed within the last window — a sliding log
 * (server/http/rate-limit.ts). `lastAllowed` is the decision of the statement that last wrote the row.
 */
export const apiRateLimitLogs = pgTable(
  "api_rate_limit_logs",
  {
    key: text("key").primaryKey(),
    hits: bigint("hits", { mode: "number" }).array().notNull(),
    lastAllowed: boolean("last_allowed").notNull().default(true),
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }).notNull(),
  },
  (table) => [index("api_rate_limit_logs_expires_at_idx").on(table.expiresAt)],
);

/**
 * The call dispatcher's dial-rate pacing (server/services/call-engine/dial-rate.ts): one row per limited subject —
 * `org:<organizationId>` and `number:<organizationId>:<caller ID>` — holding the earliest time its next call may be
 * dialed. Locked in the claim transaction, so concurrent dispatchers hand out distinct slots.
 */
export const dialRateCursors = pgTable("dial_rate_cursors", {
  key: text("key").primaryKey(),
  nextSlotAt: timestamp("next_slot_at", { withTimezone: true, mode: "date" }).notNull(),
});
