import type { Db } from "@/db";
import { getSequenceOrThrow } from "@/db/queries/sequences";
import { AppError, type AppErrorCode } from "@/server/errors";
import type { RejectionReason } from "@/server/schemas/enrollment";
import type { TSequence } from "@/server/schemas/sequence";
import { sendSequenceEvents, startedEvents } from "@/server/services/sequences/sequence-events";
import { toApiSequence } from "@/server/services/sequences/sequence-shape";
import { assertCreditsFor, findOptedOutNumbers, getEnrollmentSettings } from "./checks";
import { contactRulesFor, validateContact } from "./contact";
import { createSequences } from "./create-sequences";
import { getSchedulableAgent } from "./schedulable-agent";

export type EnrollOneParams = {
  organizationId: string;
  agentId: string;
  /** The request body: known fields plus custom variables (top level and/or `customVariables`). */
  body: Record<string, unknown>;
  /** `api` or `dashboard`. */
  scheduledBy: string;
  now: Date;
  random?: () => number;
};

/** Single enrollment reports a field error as its own 400 code; a missing name or number is a schema error. */
const errorCodeOfReason: Record<RejectionReason, AppErrorCode> = {
  MISSING_NAME: "INVALID_REQUEST",
  INVALID_NAME: "INVALID_REQUEST",
  MISSING_PHONE_NUMBER: "INVALID_REQUEST",
  INVALID_PHONE_NUMBER: "INVALID_PHONE_NUMBER",
  DUPLICATE_PHONE_NUMBER: "INVALID_PHONE_NUMBER",
  INVALID_TIMEZONE: "INVALID_TIMEZONE",
  INVALID_SCHEDULED_AT: "INVALID_SCHEDULED_AT",
  MISSING_EMAIL: "MISSING_EMAIL",
  MISSING_INPUT_VARIABLE: "MISSING_INPUT_VARIABLE",
  INVALID_INPUT_VARIABLE: "INVALID_INPUT_VARIABLE",
  OPTED_OUT: "OPTED_OUT",
  MISSING_CONSENT: "MISSING_CONSENT",
  INVALID_CONSENT: "INVALID_CONSENT",
};

/**
 * POST /agents/{agentId}/schedule/sequence. Raises, in this order: 404 AGENT_NOT_FOUND, 422 AGENT_MISCONFIGURED,
 * 400 field errors (INVALID_REQUEST for a missing name or number, INVALID_PHONE_NUMBER, INVALID_TIMEZONE,
 * INVALID_SCHEDULED_AT, MISSING_EMAIL, MISSING_INPUT_VARIABLE, INVALID_INPUT_VARIABLE, MISSING_CONSENT when the
 * organization requires consent and none was given, INVALID_CONSENT), 409 OPTED_OUT,
 * 402 INSUFFICIENT_CREDITS. Sends `sequence/started` after commit when the contact is scheduled (not waiting).
 */
export async function enrollOne(db: Db, params: EnrollOneParams): Promise<{ sequence: TSequence }> {
  const { sequence, started } = await createEnrollment(db, params);
  // After commit: the call engine picks the sequence up.
  if (started) await sendSequenceEvents(startedEvents([sequence.sequenceId]));
  return { sequence };
}

/** `enrollOne` without the event: for callers that announce themselves, or need not (the demo seed). */
export async function createEnrollment(db: Db, params: EnrollOneParams): Promise<{ sequence: TSequence; started: boolean }> {
  const agent = await getSchedulableAgent(db, params);
  const { requireConsent } = await getEnrollmentSettings(db, params.organizationId);
  const validation = await validateContact(params.body, 0, { ...contactRulesFor(agent, { defaultTimezone: null, now: params.now }), requireConsent });
  if (!validation.ok) {
    const { reason, error } = validation.rejection;
    throw new AppError(errorCodeOfReason[reason], error, { reason });
  }
  const contact = validation.contact;
  const optedOut = await findOptedOutNumbers(db, { organizationId: params.organizationId, phoneNumbers: [contact.phoneNumber] });
  if (optedOut.has(contact.phoneNumber)) {
    throw new AppError("OPTED_OUT", `${contact.phoneNumber} opted out of calls from this organization.`);
  }
  await assertCreditsFor(db, { organizationId: params.organizationId, contacts: 1, now: params.now });

  const { created, sequence } = await db.transaction(async (tx) => {
    const [created] = await createSequences(tx, { agent, contacts: [contact], batchId: null, now: params.now, random: params.random });
    if (!created) throw new Error("enrollOne: the sequence was not created");
    // The answer is the stored row, read back in the same transaction.
    return { created, sequence: await getSequenceOrThrow(tx, { organizationId: params.organizationId, sequenceId: created.sequenceId }) };
  });
  const first = created.firstCall ?? created.firstMessage;
  return { sequence: toApiSequence(sequence, first?.scheduledAt ?? null), started: first !== null };
}
