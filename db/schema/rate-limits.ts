import { integer, pgTable, text, timestamp } from "drizzle-orm/pg-core";

/** Shared rate-limit counters for `RATE_LIMIT_STORE=postgres` (rate-limiter-flexible's Drizzle store). */
export const rateLimits = pgTable("rate_limits", {
  key: text("key").primaryKey(),
  points: integer("points").notNull().default(0),
  expire: timestamp("expire", { withTimezone: true, mode: "date" }),
});
