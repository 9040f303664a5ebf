import { and, asc, eq, gt } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { optOuts } from "@/db/schema";
import type { TExportSuppressionsResponse } from "@/server/routers/suppressions/export-suppressions.schema";

/** Rows per export chunk: the console fetches chunks until `nextAfter` is null. */
export const SUPPRESSION_EXPORT_CHUNK = 5_000;

export type ExportSuppressionsParams = { organizationId: string; afterPhoneNumber: string | null };

/** The whole list in number order, in chunks (keyset on the primary key, so a large list costs one index scan per chunk). */
export async function exportSuppressions(db: DbOrTx, params: ExportSuppressionsParams): Promise<TExportSuppressionsResponse> {
  const rows = await db
    .select({ phoneNumber: optOuts.phoneNumber, reason: optOuts.reason, source: optOuts.source, createdAt: optOuts.createdAt })
    .from(optOuts)
    .where(
      and(
        eq(optOuts.organizationId, params.organizationId),
        params.afterPhoneNumber === null ? undefined : gt(optOuts.phoneNumber, params.afterPhoneNumber),
      ),
    )
    .orderBy(asc(optOuts.phoneNumber))
    .limit(SUPPRESSION_EXPORT_CHUNK + 1);
  const chunk = rows.slice(0, SUPPRESSION_EXPORT_CHUNK);
  return {
    suppressions: chunk.map((row) => ({ ...row, createdAt: row.createdAt.toISOString() })),
    nextAfter: rows.length > SUPPRESSION_EXPORT_CHUNK ? chunk[chunk.length - 1]!.phoneNumber : null,
  };
}
