import { eq, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { calls, organizations, sequences, type CallDisclosures } from "@/db/schema";
import { planDisclosures, type RecordingNoticeMode } from "./disclosures";
import { createRedactor, type RedactionSettings, type Redactor } from "./redaction";

/** An organization's privacy settings, as a call needs them. */
export type OrganizationPrivacy = { name: string; keepRecordings: boolean; retentionDays: number | null; redaction: RedactionSettings };

/** What a voice engine needs to disclose, record and redact for one call (part of PlaceCallRequest). */
export type CallPrivacy = {
  disclosures: CallDisclosures;
  /** False: the organization keeps no recordings, or the call is a callback (transcribed, its audio not kept); the engine does not record. */
  keepRecordings: boolean;
  redaction: RedactionSettings;
  /** Exempt from redaction: the contact's own number and email, the number we call from, the disclosures' texts. */
  exemptions: { phoneNumbers: string[]; emails: string[]; texts?: string[] };
};

export async function findOrganizationPrivacy(db: DbOrTx, organizationId: string): Promise<OrganizationPrivacy> {
  const [row] = await db
    .select({
      name: organizations.name,
      keepRecordings: organizations.keepRecordings,
      retentionDays: organizations.retentionDays,
      categories: organizations.redactionCategories,
      patterns: organizations.redactionPatterns,
    })
    .from(organizations)
    .where(eq(organizations.id, organizationId))
    .limit(1);
  if (!row) return { name: "", keepRecordings: true, retentionDays: null, redaction: { categories: [], patterns: [] } };
  return { name: row.name, keepRecordings: row.keepRecordings, retentionDays: row.retentionDays, redaction: { categories: row.categories, patterns: row.patterns } };
}

export type CallPrivacySource = {
  call: { disclosures: CallDisclosures | null; fromPhoneNumber: string; direction?: string };
  sequence: { phoneNumber: string; toEmailAddress: string | null; consent: (typeof sequences.$inferSelect)["consent"] };
  agent: { name: string; disclosureIdentification: string | null; disclosureRecordingNotice: string | null; recordingNoticeMode: string };
};

/** The call's privacy: the disclosures already planned for it (a re-placed call keeps them), or planned now. */
export function buildCallPrivacy(organization: OrganizationPrivacy, source: CallPrivacySource, now: Date): CallPrivacy {
  const disclosures =
    source.call.disclosures ??
    planDisclosures({
      organizationName: organization.name,
      agent: {
        name: source.agent.name,
        identification: source.agent.disclosureIdentification,
        recordingNotice: source.agent.disclosureRecordingNotice,
        recordingNoticeMode: source.agent.recordingNoticeMode as RecordingNoticeMode,
      },
      phoneNumber: source.sequence.phoneNumber,
      inbound: source.call.direction === "inbound",
      keepRecordings: organization.keepRecordings,
      consent: source.sequence.consent ?? null,
      now,
    });
  return {
    disclosures,
    // As planned in the audit trail (planDisclosures): a callback is not recorded, by any engine.
    keepRecordings: organization.keepRecordings && source.call.direction !== "inbound",
    redaction: organization.redaction,
    exemptions: {
      phoneNumbers: [source.sequence.phoneNumber, source.call.fromPhoneNumber].filter(Boolean),
      emails: source.sequence.toEmailAddress ? [source.sequence.toEmailAddress] : [],
      texts: [disclosures.identification.text, disclosures.recordingNotice.text].filter(Boolean),
    },
  };
}

export function redactorFor(privacy: Pick<CallPrivacy, "redaction" | "exemptions">): Redactor {
  return createRedactor(privacy.redaction, privacy.exemptions);
}

/** The redactor of a stored call (its organization's settings, its contact's number and email); null for an unknown call. */
export async function findCallRedactor(db: DbOrTx, callId: string): Promise<Redactor | null> {
  return (await findStoredCallPrivacy(db, callId))?.redactor ?? null;
}

/**
 * A stored call's redactor and whether its organization keeps recordings, read in one statement (the call, its
 * contact and its organization's settings: each voice event needs them, issue 38); null for an unknown call.
 */
export async function findStoredCallPrivacy(db: DbOrTx, callId: string): Promise<{ redactor: Redactor; keepRecordings: boolean } | null> {
  const [row] = await db
    .select({
      from: calls.fromPhoneNumber,
      phoneNumber: sequences.phoneNumber,
      email: sequences.toEmailAddress,
      disclosures: calls.disclosures,
      keepRecordings: organizations.keepRecordings,
      categories: organizations.redactionCategories,
      patterns: organizations.redactionPatterns,
    })
    .from(calls)
    .innerJoin(sequences, eq(sequences.id, calls.sequenceId))
    .leftJoin(organizations, eq(organizations.id, calls.organizationId))
    .where(eq(calls.id, callId))
    .limit(1);
  if (!row) return null;
  const texts = row.disclosures ? [row.disclosures.identification.text, row.disclosures.recordingNotice.text].filter(Boolean) : [];
  // As findOrganizationPrivacy when the organization is gone: nothing redacted by category, recordings kept.
  const redaction: RedactionSettings = { categories: row.categories ?? [], patterns: row.patterns ?? [] };
  return {
    redactor: createRedactor(redaction, { phoneNumbers: [row.phoneNumber, row.from].filter(Boolean), emails: row.email ? [row.email] : [], texts }),
    keepRecordings: row.keepRecordings ?? true,
  };
}

/** The planned disclosures become the call's audit trail when it is placed (a call placed again keeps the first). */
export async function recordPlannedDisclosures(db: DbOrTx, params: { callId: string; disclosures: CallDisclosures }): Promise<void> {
  await db
    .update(calls)
    .set({ disclosures: sql`coalesce(${calls.disclosures}, ${JSON.stringify(params.disclosures)}::jsonb)` })
    .where(eq(calls.id, params.callId));
}

export type DisclosureKind = "identification" | "recordingNotice";

/** A disclosure was spoken: when (offset from the answer) and how. The first report counts. */
export async function markDisclosureSpoken(
  db: DbOrTx,
  params: { callId: string; kind: DisclosureKind; offsetMs: number; at: Date; via: "call" | "voicemail" },
): Promise<void> {
  const patch = JSON.stringify({ spoken: true, offsetMs: Math.max(0, Math.round(params.offsetMs)), spokenAt: params.at.toISOString(), via: params.via });
  await db
    .update(calls)
    .set({ disclosures: sql`jsonb_set(${calls.disclosures}, ${`{${params.kind}}`}::text[], (${calls.disclosures} -> ${params.kind}) || ${patch}::jsonb)` })
    .where(sql`${calls.id} = ${params.callId} and ${calls.disclosures} is not null and coalesce((${calls.disclosures} -> ${params.kind} ->> 'spoken')::boolean, false) = false`);
}

/** The contact objected to the recording: it stopped at `offsetMs` for the rest of the call. Once per call. */
export async function markRecordingDeclined(db: DbOrTx, params: { callId: string; offsetMs: number; at: Date; reason: string }): Promise<boolean> {
  const patch = JSON.stringify({ state: "declined", changedAt: params.at.toISOString(), offsetMs: Math.max(0, Math.round(params.offsetMs)), reason: params.reason.slice(0, 200) });
  const updated = await db
    .update(calls)
    .set({ disclosures: sql`jsonb_set(${calls.disclosures}, '{recording}', ${patch}::jsonb)` })
    .where(sql`${calls.id} = ${params.callId} and ${calls.disclosures} is not null and ${calls.disclosures} -> 'recording' ->> 'state' = 'on'`)
    .returning({ id: calls.id });
  return updated.length > 0;
}
