import { and, eq, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { sequences } from "@/db/schema";

/**
 * How many sequences of the organization a cancel by reference (POST /sequences/cancel) would touch, so the console can
 * say so before anyone confirms: in-progress ones are cancelled, the others skipped. Same match as the cancel: the
 * custom input variable equals the value exactly.
 */
export async function countSequencesByReference(
  db: DbOrTx,
  params: { organizationId: string; referenceKey: string; referenceValue: string },
): Promise<{ inProgress: number; total: number }> {
  const [row] = await db
    .select({
      total: sql<number>`count(*)::int`,
      inProgress: sql<number>`count(*) filter (where ${sequences.lifecycleStatus} = 'in progress')::int`,
    })
    .from(sequences)
    .where(
      and(
        eq(sequences.organizationId, params.organizationId),
        sql`${sequences.customInputVariables} @> ${JSON.stringify({ [params.referenceKey]: params.referenceValue })}::jsonb`,
      ),
    );
  return { inProgress: row?.inProgress ?? 0, total: row?.total ?? 0 };
}
