import { index, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";
import { organizations } from "./organizations";

/**
 * How a number got onto the suppression list: `call` (the contact opted out during a call — an `Opted Out` result or
 * the voice agent's opt-out tool), `api` (POST /api/v1/suppressions), `console` (added in the dashboard), `import`
 * (a CSV imported in the dashboard), `sms` (the contact replied STOP or a variant to one of our numbers).
 */
export const suppressionSources = ["call", "api", "console", "import", "sms"] as const;
export type SuppressionSource = (typeof suppressionSources)[number];

/**
 * The organization's suppression list (do-not-call): numbers (E.164) that are never enrolled (OPTED_OUT) and never
 * dialed, whatever agent or sequence. One row per number and organization. The table keeps its historical name
 * `opt_outs` (the call engine reads it at dial time); rows written before the list had sources are opt-outs from calls.
 */
export const optOuts = pgTable(
  "opt_outs",
  {
    organizationId: text("organization_id").notNull().references(() => organizations.id, { onDelete: "cascade" }),
    phoneNumber: text("phone_number").notNull(),
    /** The call the contact opted out in (source `call`). */
    sourceCallId: text("source_call_id"),
    source: text("source").$type<SuppressionSource>().notNull().default("call"),
    /** Free text given when the number was added (API, console, import); null for opt-outs during calls. */
    reason: text("reason"),
    /** Who added it: `apiKey:<keyId>` or `user:<userId>`; null for opt-outs during calls. */
    createdBy: text("created_by"),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.phoneNumber] }),
    // The list pages newest first.
    index("opt_outs_org_created_idx").on(t.organizationId, t.createdAt, t.phoneNumber),
  ],
);
