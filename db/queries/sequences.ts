import { and, eq } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { sequences } from "@/db/schema";
import { AppError } from "@/server/errors";

export type Sequence = typeof sequences.$inferSelect;
export type SequenceInOrganizationParams = { organizationId: string; sequenceId: string };

/** The sequence, scoped to the organization; null for an unknown sequence and for one of another organization alike. */
export async function findSequence(db: DbOrTx, params: SequenceInOrganizationParams): Promise<Sequence | null> {
  const [sequence] = await db
    .select()
    .from(sequences)
    .where(and(eq(sequences.id, params.sequenceId), eq(sequences.organizationId, params.organizationId)))
    .limit(1);
  return sequence ?? null;
}

/** The sequence, scoped to the organization: 404 SEQUENCE_NOT_FOUND for an unknown one and for one of another organization alike. */
export async function getSequenceOrThrow(db: DbOrTx, params: SequenceInOrganizationParams): Promise<Sequence> {
  const sequence = await findSequence(db, params);
  if (!sequence) throw new AppError("SEQUENCE_NOT_FOUND", `Sequence ${params.sequenceId} was not found.`);
  return sequence;
}
