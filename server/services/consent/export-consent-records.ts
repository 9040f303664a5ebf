import { and, asc, eq, gt, gte, inArray, isNotNull, lt, or } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { calls, sequences, type ConsentRecord } from "@/db/schema";
import type { TExportConsentRecordsResponse } from "@/server/routers/consent/export-consent-records.schema";

/** Rows per export chunk: the console fetches chunks until `nextAfter` is null. */
export const CONSENT_EXPORT_CHUNK = 5_000;

export type ExportConsentRecordsParams = {
  organizationId: string;
  /** Enrollment time range [from, to). */
  from: Date;
  to: Date;
  /** Keyset position of the previous chunk's last row. */
  after: { enrolledAt: Date; sequenceId: string } | null;
};

/**
 * The organization's consent records — one per sequence enrolled with one — of contacts enrolled in [from, to), in
 * enrollment order, in chunks (keyset on (created_at, id) over the partial index of sequences with consent).
 */
export async function exportConsentRecords(db: DbOrTx, params: ExportConsentRecordsParams): Promise<TExportConsentRecordsResponse> {
  const rows = await db
    .select({
      sequenceId: sequences.id,
      agentId: sequences.agentId,
      name: sequences.name,
      phoneNumber: sequences.phoneNumber,
      createdAt: sequences.createdAt,
      consent: sequences.consent,
    })
    .from(sequences)
    .where(
      and(
        eq(sequences.organizationId, params.organizationId),
        isNotNull(sequences.consent),
        gte(sequences.createdAt, params.from),
        lt(sequences.createdAt, params.to),
        params.after === null
          ? undefined
          : or(
              gt(sequences.createdAt, params.after.enrolledAt),
              and(eq(sequences.createdAt, params.after.enrolledAt), gt(sequences.id, params.after.sequenceId)),
            ),
      ),
    )
    .orderBy(asc(sequences.createdAt), asc(sequences.id))
    .limit(CONSENT_EXPORT_CHUNK + 1);
  const chunk = rows.slice(0, CONSENT_EXPORT_CHUNK);
  const last = chunk[chunk.length - 1];
  // The audit trail of each contact's dialed calls, exported with the consent it relied on.
  const audited =
    chunk.length === 0
      ? []
      : await db
          .select({ sequenceId: calls.sequenceId, callId: calls.id, dialedAt: calls.dialedAt, disclosures: calls.disclosures })
          .from(calls)
          .where(and(eq(calls.organizationId, params.organizationId), inArray(calls.sequenceId, chunk.map((row) => row.sequenceId)), isNotNull(calls.disclosures)))
          .orderBy(asc(calls.sequenceId), asc(calls.stepNumber), asc(calls.attempt));
  const callsOf = new Map<string, typeof audited>();
  for (const call of audited) callsOf.set(call.sequenceId, [...(callsOf.get(call.sequenceId) ?? []), call]);
  return {
    records: chunk.map((row) => ({
      sequenceId: row.sequenceId,
      agentId: row.agentId,
      name: row.name,
      phoneNumber: row.phoneNumber,
      enrolledAt: row.createdAt.toISOString(),
      consent: row.consent as ConsentRecord,
      calls: (callsOf.get(row.sequenceId) ?? []).map((call) => ({ callId: call.callId, dialedAt: call.dialedAt?.toISOString() ?? null, disclosures: call.disclosures! })),
    })),
    nextAfter: rows.length > CONSENT_EXPORT_CHUNK && last ? { enrolledAt: last.createdAt.toISOString(), sequenceId: last.sequenceId } : null,
  };
}
