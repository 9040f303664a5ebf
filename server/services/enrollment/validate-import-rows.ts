import type { DbOrTx } from "@/db";
import { AppError } from "@/server/errors";
import type { TImportRowCheck } from "@/server/schemas/enrollment";
import { MAX_CONTACTS_PER_REQUEST } from "@/server/schemas/limits";
import { findOptedOutNumbers, getEnrollmentSettings } from "./checks";
import { contactRulesFor, parseDefaultTimezone, validateContact } from "./contact";
import { DASHBOARD_SCHEDULED_BY, getSchedulableAgent } from "./schedulable-agent";

/** One import batch. */
const MAX_ROWS_PER_VALIDATION = MAX_CONTACTS_PER_REQUEST;

export type ValidateImportRowsParams = {
  organizationId: string;
  agentId: string;
  /** Contacts shaped like the items of a bulk request (what the import will send). */
  rows: Array<Record<string, unknown>>;
  timezone?: string;
  groupByField?: string;
  now: Date;
};

/**
 * A dry run of the bulk service's per-contact checks for the CSV import preview: the same `validateContact` rules,
 * agent checks and opt-out list as POST /agents/{agentId}/schedule/sequences, with nothing written. Duplicates are left
 * to the caller, which sees the whole file (the bulk service only sees one request); it compares `dialKey`s.
 * Whole-request errors are the bulk service's: AGENT_NOT_FOUND, AGENT_MISCONFIGURED, INVALID_TIMEZONE (default zone).
 */
export async function validateImportRows(db: DbOrTx, params: ValidateImportRowsParams): Promise<{ rows: TImportRowCheck[] }> {
  if (params.rows.length > MAX_ROWS_PER_VALIDATION) {
    throw new AppError("INVALID_REQUEST", `rows: at most ${MAX_ROWS_PER_VALIDATION} rows per validation request`);
  }
  const agent = await getSchedulableAgent(db, { ...params, scheduledBy: DASHBOARD_SCHEDULED_BY });
  const { requireConsent } = await getEnrollmentSettings(db, params.organizationId);
  const rules = { ...contactRulesFor(agent, { defaultTimezone: parseDefaultTimezone(params.timezone), groupByField: params.groupByField, now: params.now }), requireConsent };
  const results: TImportRowCheck[] = [];
  for (let index = 0; index < params.rows.length; index += 1) {
    const result = await validateContact(params.rows[index]!, index, rules);
    if (result.ok) {
      const { contact } = result;
      results.push({ index, ok: true, dialKey: `${contact.phoneNumber};${contact.phoneNumberExt}`, phoneNumber: contact.phoneNumber, timezone: contact.timezone });
    } else {
      results.push({ index, ok: false, reason: result.rejection.reason, error: result.rejection.error });
    }
  }
  const optedOut = await findOptedOutNumbers(db, {
    organizationId: params.organizationId,
    phoneNumbers: results.flatMap((row) => (row.ok ? [row.phoneNumber] : [])),
  });
  return {
    rows: results.map((row) =>
      row.ok && optedOut.has(row.phoneNumber)
        ? { index: row.index, ok: false, reason: "OPTED_OUT", error: `${row.phoneNumber} opted out of calls from this organization.` }
        : row,
    ),
  };
}
