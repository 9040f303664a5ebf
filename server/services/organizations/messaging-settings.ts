import { eq } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { findOrganizationNumbers as findOwnedNumberRows } from "@/db/queries/numbers";
import { organizations, phoneNumberSettings } from "@/db/schema";
import { getConfig } from "@/server/config/env";
import { findPoolHolders } from "@/server/services/numbers/number-view";
import { assertOrganizationNumbers } from "@/server/services/numbers/pool-numbers";
import { AppError, invalidField } from "@/server/errors";
import type { TMessagingSettings } from "@/server/routers/organizations/messaging-settings.schema";
import { defaultFallbackMessage } from "@/server/services/call-engine/inbound-call";
import { defaultHelpText } from "@/server/services/messaging/sms-keywords";
import { normalizePhoneNumber } from "@/server/services/phone/normalize-phone-number";
import { countSmsSegments } from "@/server/services/sequences/message-template";

/** The organization's own numbers that take calls (docs/numbers.md), with the agents whose pools hold each. */
async function findOrganizationNumbers(db: DbOrTx, organizationId: string): Promise<Map<string, string[]>> {
  const [owned, holders] = await Promise.all([findOwnedNumberRows(db, organizationId), findPoolHolders(db, organizationId)]);
  const numbers = new Map<string, string[]>();
  for (const row of owned) {
    if (row.status === "active" && row.inbound) numbers.set(row.phoneNumber, (holders.get(row.phoneNumber) ?? []).map((agent) => agent.name));
  }
  return numbers;
}

/** The console's messaging settings: sender, reply-to and SMS help text, and each number's callback fallback. */
export async function getMessagingSettings(db: DbOrTx, params: { organizationId: string }): Promise<TMessagingSettings> {
  const [organization] = await db
    .select({ name: organizations.name, emailFrom: organizations.emailFrom, emailReplyTo: organizations.emailReplyTo, smsHelpText: organizations.smsHelpText })
    .from(organizations)
    .where(eq(organizations.id, params.organizationId));
  if (!organization) throw new AppError("NOT_FOUND", "Organization not found.");
  const [numbers, settings] = await Promise.all([
    findOrganizationNumbers(db, params.organizationId),
    db.select().from(phoneNumberSettings).where(eq(phoneNumberSettings.organizationId, params.organizationId)),
  ]);
  const byNumber = new Map(settings.map((row) => [row.phoneNumber, row]));
  return {
    emailFrom: organization.emailFrom,
    emailReplyTo: organization.emailReplyTo,
    smsHelpText: organization.smsHelpText,
    defaultSmsHelpText: defaultHelpText(organization.name),
    smsOptOutHandling: getConfig().SMS_OPT_OUT_HANDLING,
    defaultFallbackMessage: defaultFallbackMessage(organization.name),
    phoneNumbers: [...numbers.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([phoneNumber, agentNames]) => {
        const row = byNumber.get(phoneNumber);
        return { phoneNumber, agentNames, fallbackMode: row?.fallbackMode ?? "message", forwardTo: row?.forwardTo ?? null, fallbackMessage: row?.fallbackMessage ?? null };
      }),
  };
}

const ADDRESS = /^[^\s@<>(),;:"[\]\\]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+$/;

function invalid(path: string, message: string): never {
  throw invalidField(path, message);
}

/** `Name <address>` or a bare address; the display name without angle brackets, quotes or line breaks. */
export function validateSender(field: string, value: string): string {
  const text = value.trim();
  const named = /^([^<>"\r\n]*?)\s*<([^<>\s]+)>$/.exec(text);
  const address = named ? named[2]! : text;
  if (!ADDRESS.test(address)) invalid(field, `"${value.slice(0, 80)}" is not an email address (use name@example.com or "Name <name@example.com>")`);
  return named && named[1]!.trim() ? `${named[1]!.trim()} <${address}>` : address;
}

export type UpdateMessagingSettingsParams = { organizationId: string; emailFrom?: string | null; emailReplyTo?: string | null; smsHelpText?: string | null };

/**
 * Admins: the organization's sender, reply-to and HELP answer; fields left out keep their value, null or empty resets
 * to the default. Refused with a field error (INVALID_REQUEST): a From or Reply-To that is not an address (Reply-To must
 * be a bare address), a help text over 3 SMS segments or that does not say how to opt out (carriers require STOP in it).
 */
export async function updateMessagingSettings(db: DbOrTx, params: UpdateMessagingSettingsParams): Promise<TMessagingSettings> {
  const set: Partial<typeof organizations.$inferInsert> = {};
  if (params.emailFrom !== undefined) set.emailFrom = params.emailFrom?.trim() ? validateSender("emailFrom", params.emailFrom) : null;
  if (params.emailReplyTo !== undefined) {
    const value = params.emailReplyTo?.trim() ?? "";
    if (value && !ADDRESS.test(value)) invalid("emailReplyTo", `"${value.slice(0, 80)}" is not an email address`);
    set.emailReplyTo = value || null;
  }
  if (params.smsHelpText !== undefined) {
    const value = params.smsHelpText?.trim() ?? "";
    if (value) {
      const { segments } = countSmsSegments(value);
      if (segments > 3) invalid("smsHelpText", `${segments} SMS segments; at most 3`);
      if (!/\bSTOP\b/i.test(value)) invalid("smsHelpText", "must tell how to opt out (include \"Reply STOP to unsubscribe\")");
    }
    set.smsHelpText = value || null;
  }
  if (Object.keys(set).length > 0) await db.update(organizations).set(set).where(eq(organizations.id, params.organizationId));
  return getMessagingSettings(db, { organizationId: params.organizationId });
}

export type UpdatePhoneNumberSettingsParams = {
  organizationId: string;
  /** `user:<id>` or `apiKey:<id>`: who changed it. */
  actor: string;
  phoneNumber: string;
  fallbackMode: "message" | "forward";
  forwardTo?: string | null;
  fallbackMessage?: string | null;
  now: Date;
};

/**
 * Admins: what a call to one of the organization's numbers gets when no agent takes it (docs/sequences.md
 * "Callbacks"). Refused (field named): a number that is not the organization's own and taking calls (400, or 409
 * NUMBER_OWNED_ELSEWHERE), `forward`
 * without a valid forwarding number, or forwarding to one of the organization's own numbers (a loop).
 */
export async function updatePhoneNumberSettings(db: DbOrTx, params: UpdatePhoneNumberSettingsParams): Promise<TMessagingSettings> {
  const phoneNumber = normalizePhoneNumber(params.phoneNumber)?.e164 ?? invalid("phoneNumber", `"${params.phoneNumber.slice(0, 40)}" is not a valid phone number`);
  await assertOrganizationNumbers(db, { organizationId: params.organizationId, field: "phoneNumber", single: true, numbers: [phoneNumber], use: "inbound" });
  const numbers = await findOrganizationNumbers(db, params.organizationId);
  let forwardTo: string | null = null;
  if (params.fallbackMode === "forward") {
    if (!params.forwardTo?.trim()) invalid("forwardTo", "required to forward calls");
    forwardTo = normalizePhoneNumber(params.forwardTo)?.e164 ?? invalid("forwardTo", `"${params.forwardTo.slice(0, 40)}" is not a valid phone number`);
    if (numbers.has(forwardTo)) invalid("forwardTo", `${forwardTo} is one of this organization's own numbers`);
  }
  const fallbackMessage = params.fallbackMessage?.trim() || null;
  const values = { fallbackMode: params.fallbackMode, forwardTo, fallbackMessage, updatedBy: params.actor, updatedAt: params.now };
  await db
    .insert(phoneNumberSettings)
    .values({ organizationId: params.organizationId, phoneNumber, ...values })
    .onConflictDoUpdate({ target: [phoneNumberSettings.organizationId, phoneNumberSettings.phoneNumber], set: values });
  return getMessagingSettings(db, { organizationId: params.organizationId });
}
