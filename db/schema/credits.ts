import { index, integer, pgTable, primaryKey, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { agents } from "./agents";
import { organizations } from "./organizations";

/** Allocation for one billing month (`YYYY-MM`); months without a row use the organization's monthly allocation. */
export const creditAllocations = pgTable(
  "credit_allocations",
  {
    organizationId: text("organization_id").notNull().references(() => organizations.id, { onDelete: "cascade" }),
    month: text("month").notNull(),
    credits: integer("credits").notNull(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.month] })],
);

/** The ledger: one row per charged call, email or SMS. `callId` is unique so a retried charge cannot be written twice. */
export const creditTransactions = pgTable(
  "credit_transactions",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id").notNull().references(() => organizations.id, { onDelete: "cascade" }),
    agentId: text("agent_id").references(() => agents.id, { onDelete: "set null" }),
    callId: text("call_id"),
    /** The email or SMS (sequence_messages) charged by this row; unique like callId. */
    messageId: text("message_id"),
    credits: integer("credits").notNull(),
    description: text("description").notNull().default(""),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [
    index("credit_transactions_org_time_idx").on(t.organizationId, t.createdAt),
    uniqueIndex("credit_transactions_call_idx").on(t.callId),
    uniqueIndex("credit_transactions_message_idx").on(t.messageId),
  ],
);
