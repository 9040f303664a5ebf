import type { DbOrTx } from "@/db";
import { AppError } from "@/server/errors";
import { findOptedOutNumbers, getEnrollmentSettings } from "./checks";
import {
  contactRulesFor,
  parseDefaultTimezone,
  phoneNumberAsSent,
  validateContact,
  type ContactRejection,
  type ContactRules,
  type EnrollmentContact,
} from "./contact";
import { getSchedulableAgent, type SchedulableAgent } from "./schedulable-agent";

export type BulkEnrollmentBody = {
  contacts: Array<Record<string, unknown>>;
  timezone?: string;
  groupByField?: string;
  allowDuplicates?: boolean;
  titleCaseFields?: string[];
};

export type DecideBulkEnrollmentParams = {
  organizationId: string;
  agentId: string;
  body: BulkEnrollmentBody;
  scheduledBy: string;
  now: Date;
};

export type BulkEnrollmentDecisions = {
  agent: SchedulableAgent;
  rules: ContactRules;
  /** Contacts that would be scheduled, in request order. */
  valid: EnrollmentContact[];
  /** The others, by index, with the reason bulk enrollment gives. */
  rejected: ContactRejection[];
};

/** Duplicate detection key: the normalized number and its extension (two extensions are two people). */
const dialKey = (contact: EnrollmentContact) => `${contact.phoneNumber};${contact.phoneNumberExt}`;

/**
 * The decisions of bulk enrollment on a request, writing nothing: shared by POST …/schedule/sequences (which then
 * records the batch) and POST …/schedule/sequences/preview (which only reports them), so the two cannot disagree.
 *
 * Whole-request failures, in this order: 400 INVALID_REQUEST (groupByField with allowDuplicates), 404 AGENT_NOT_FOUND,
 * 422 AGENT_MISCONFIGURED, 400 INVALID_TIMEZONE (batch default). Per contact: the validation reasons of `validateContact`,
 * then OPTED_OUT (the number is on the organization's suppression list), then DUPLICATE_PHONE_NUMBER (unless
 * `allowDuplicates`).
 */
export async function decideBulkEnrollment(db: DbOrTx, params: DecideBulkEnrollmentParams): Promise<BulkEnrollmentDecisions> {
  const { organizationId, body, now } = params;
  const allowDuplicates = body.allowDuplicates === true;
  if (allowDuplicates && (body.groupByField || body.contacts.some((contact) => contact.groupByField))) {
    throw new AppError("INVALID_REQUEST", "groupByField cannot be combined with allowDuplicates.");
  }

  const agent = await getSchedulableAgent(db, params);
  const defaultTimezone = parseDefaultTimezone(body.timezone);
  const settings = await getEnrollmentSettings(db, organizationId);
  // Title-casing is applied only for organizations on the normalization allowlist; others are scheduled as sent.
  const titleCaseFields: ReadonlySet<string> = settings.titleCaseAllowlisted && body.titleCaseFields?.length ? new Set(body.titleCaseFields) : new Set();

  const rules: ContactRules = {
    ...contactRulesFor(agent, { defaultTimezone, groupByField: body.groupByField, titleCaseFields, now }),
    requireConsent: settings.requireConsent,
  };
  const rejected: ContactRejection[] = [];
  let valid: EnrollmentContact[] = [];
  for (let index = 0; index < body.contacts.length; index += 1) {
    const result = await validateContact(body.contacts[index]!, index, rules);
    if (result.ok) valid.push(result.contact);
    else rejected.push(result.rejection);
  }

  const optedOut = await findOptedOutNumbers(db, { organizationId, phoneNumbers: valid.map((contact) => contact.phoneNumber) });
  const rawPhone = (index: number) => phoneNumberAsSent(body.contacts[index]!);
  const firstOccurrence = new Map<string, number>();
  valid = valid.filter((contact) => {
    if (optedOut.has(contact.phoneNumber)) {
      rejected.push({
        index: contact.index,
        phoneNumber: rawPhone(contact.index),
        reason: "OPTED_OUT",
        error: `${contact.phoneNumber} opted out of calls from this organization.`,
      });
      return false;
    }
    if (allowDuplicates) return true;
    const first = firstOccurrence.get(dialKey(contact));
    if (first !== undefined) {
      rejected.push({
        index: contact.index,
        phoneNumber: rawPhone(contact.index),
        reason: "DUPLICATE_PHONE_NUMBER",
        error: `${contact.phoneNumber} already appears at index ${first}; only the first occurrence is scheduled.`,
      });
      return false;
    }
    firstOccurrence.set(dialKey(contact), contact.index);
    return true;
  });
  rejected.sort((a, b) => a.index - b.index);
  return { agent, rules, valid, rejected };
}
