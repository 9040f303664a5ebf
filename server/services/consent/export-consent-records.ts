import { and, asc, eq, gt, gte, isNotNull, lt, or } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { sequences, type ConsentRecord } from "@/db/schema";
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
  return {
    records: chunk.map((row) => ({
      sequenceId: row.sequenceId,
      agentId: row.agentId,
      name: row.name,
      phoneNumber: row.phoneNumber,
      enrolledAt: row.createdAt.toISOString(),
      consent: row.consent as ConsentRecord,
    })),
    nextAfter: rows.length > CONSENT_EXPORT_CHUNK && last ? { enrolledAt: last.createdAt.toISOString(), sequenceId: last.sequenceId } : null,
  };
}
