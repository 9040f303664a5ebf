import { sql } from "drizzle-orm";
import { date, doublePrecision, index, integer, jsonb, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";
import { organizations } from "./organizations";
import { numbers } from "./phone-numbers";

/** Per stratum (`<region>|<hour band>`, server/services/numbers/health/call-stratum.ts): [calls that could be answered, answered by a person]. */
export type NumberStrata = Record<string, [number, number]>;

/**
 * What one of the organization's numbers did on one UTC day (docs/numbers.md "Number health"): written once per
 * outbound call when its final result is written (finalize-call.ts, in the same transaction) and once per SMS STOP to
 * the number. `placed` counts every dialed call that ended; `answered + voicemail + noAnswer + busy` are the calls
 * that reached the network (the answer rate's denominator); `failed` covers carrier failures and invalid numbers.
 * Keyed by the number itself (E.164), not the `numbers` row: a number's reputation follows the number.
 */
export const numberDailyStats = pgTable(
  "number_daily_stats",
  {
    organizationId: text("organization_id").notNull().references(() => organizations.id, { onDelete: "cascade" }),
    phoneNumber: text("phone_number").notNull(),
    /** The UTC day the calls were dialed. */
    day: date("day", { mode: "string" }).notNull(),
    placed: integer("placed").notNull().default(0),
    /** Answered by a person (not a machine: AMD and the model's own judgement, docs/call-quality.md). */
    answered: integer("answered").notNull().default(0),
    /** Answered by a person and over in less than 10 seconds. */
    shortCalls: integer("short_calls").notNull().default(0),
    voicemail: integer("voicemail").notNull().default(0),
    noAnswer: integer("no_answer").notNull().default(0),
    busy: integer("busy").notNull().default(0),
    failed: integer("failed").notNull().default(0),
    /** Calls that ended `Opted Out`. */
    optOuts: integer("opt_outs").notNull().default(0),
    /** SMS STOPs (and variants) sent to this number. */
    stops: integer("stops").notNull().default(0),
    /** Calls the carrier signed with STIR/SHAKEN attestation A, B or C (Twilio's `StirStatus`); the rest had none reported. */
    attestationA: integer("attestation_a").notNull().default(0),
    attestationB: integer("attestation_b").notNull().default(0),
    attestationC: integer("attestation_c").notNull().default(0),
    /** The answer counts by the contact's region and local hours: what the health rule compares numbers on. */
    strata: jsonb("strata").$type<NumberStrata>().notNull().default(sql`'{}'::jsonb`),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.phoneNumber, t.day] }), index("number_daily_stats_org_day_idx").on(t.organizationId, t.day)],
);

/**
 * The health rule's running state of one number (server/services/numbers/health/health-rule.ts): the two one-sided
 * Bernoulli CUSUMs (rest and watch), each with the calls of its current run (since its statistic was last 0), and
 * the calls since the number entered its current health state. Written only with the `version` it was read at
 * (optimistic: a concurrent writer makes the other read again), and every change of the number's health writes it,
 * so each call is taken once and a change is decided on the state it was made from.
 */
export const numberHealthMonitors = pgTable(
  "number_health_monitors",
  {
    numberId: text("number_id")
      .primaryKey()
      .references(() => numbers.id, { onDelete: "cascade" }),
    organizationId: text("organization_id").notNull().references(() => organizations.id, { onDelete: "cascade" }),
    restStatistic: doublePrecision("rest_statistic").notNull().default(0),
    restCalls: integer("rest_calls").notNull().default(0),
    restAnswered: integer("rest_answered").notNull().default(0),
    restExpected: doublePrecision("rest_expected").notNull().default(0),
    watchStatistic: doublePrecision("watch_statistic").notNull().default(0),
    watchCalls: integer("watch_calls").notNull().default(0),
    watchAnswered: integer("watch_answered").notNull().default(0),
    watchExpected: doublePrecision("watch_expected").notNull().default(0),
    stateCalls: integer("state_calls").notNull().default(0),
    stateAnswered: integer("state_answered").notNull().default(0),
    stateExpected: doublePrecision("state_expected").notNull().default(0),
    version: integer("version").notNull().default(0),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [index("number_health_monitors_org_idx").on(t.organizationId)],
);
