import { and, eq, lte } from "drizzle-orm";
import type { Db } from "@/db";
import { bulkBatches } from "@/db/schema";
import { AppError } from "@/server/errors";
import { newUuid } from "@/server/ids";
import { sendSequenceEvents } from "@/server/services/sequences/sequence-events";
import type { TBulkEnrollmentResult } from "@/server/schemas/enrollment";
import { MAX_IDEMPOTENCY_KEY_LENGTH } from "@/server/schemas/limits";
import { assertCreditsFor } from "./checks";
import { decideBulkEnrollment, type BulkEnrollmentBody } from "./decide-bulk-enrollment";

/** A replay within this window returns the first 202 body (DESIGN §4). */
export const IDEMPOTENCY_WINDOW_MS = 24 * 3600 * 1000;

export type EnrollManyParams = {
  organizationId: string;
  agentId: string;
  body: BulkEnrollmentBody;
  /** The `Idempotency-Key` header, if sent. */
  idempotencyKey: string | null;
  scheduledBy: string;
  now: Date;
};

/** 400 INVALID_REQUEST unless the key is 1–255 characters. */
export function checkIdempotencyKey(key: string | null): string | null {
  if (key === null) return null;
  if (key.length === 0 || key.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
    throw new AppError("INVALID_REQUEST", `Idempotency-Key must be 1–${MAX_IDEMPOTENCY_KEY_LENGTH} characters.`);
  }
  return key;
}

async function findReplay(db: Db, organizationId: string, key: string, now: Date): Promise<TBulkEnrollmentResult | null> {
  const [row] = await db
    .select({ response: bulkBatches.response, createdAt: bulkBatches.createdAt })
    .from(bulkBatches)
    .where(and(eq(bulkBatches.organizationId, organizationId), eq(bulkBatches.idempotencyKey, key)))
    .limit(1);
  if (!row || row.createdAt.getTime() <= now.getTime() - IDEMPOTENCY_WINDOW_MS) return null;
  return row.response as TBulkEnrollmentResult;
}

/**
 * POST /agents/{agentId}/schedule/sequences: validates every contact, records the batch durably and answers 202;
 * the sequences are created afterwards by the `materialize-bulk-batch` function (`materializeBulkBatch`).
 *
 * Whole-request failures, in this order: 400 INVALID_REQUEST (Idempotency-Key length, groupByField with
 * allowDuplicates), 404 AGENT_NOT_FOUND, 422 AGENT_MISCONFIGURED, 400 INVALID_TIMEZONE (batch default),
 * 400 NO_VALID_CONTACTS (with `rejected`), 402 INSUFFICIENT_CREDITS (1 per accepted contact).
 * A key seen in this organization within 24 h returns the first 202 body and schedules nothing, also when the two
 * requests race (the unique (organization, key) index decides; the loser reads the winner's body).
 */
export async function enrollMany(db: Db, params: EnrollManyParams): Promise<TBulkEnrollmentResult> {
  const outcome = await acceptBulkEnrollment(db, params);
  // After commit: materialization starts; a lost send is picked up by the resume sweep.
  if (outcome.created) await sendSequenceEvents([{ name: "sequence/bulk.accepted", data: { batchId: outcome.response.batchId } }]);
  return outcome.response;
}

/**
 * `enrollMany` without the event: validates and records the batch; `created` is false for an idempotent replay.
 * The caller materializes it (`materializeBulkBatch`) or sends `sequence/bulk.accepted`.
 */
export async function acceptBulkEnrollment(db: Db, params: EnrollManyParams): Promise<{ response: TBulkEnrollmentResult; created: boolean }> {
  const { organizationId, body, now } = params;
  const idempotencyKey = checkIdempotencyKey(params.idempotencyKey);
  if (idempotencyKey) {
    const replay = await findReplay(db, organizationId, idempotencyKey, now);
    if (replay) return { response: replay, created: false };
  }
  const { agent, rules, valid, rejected } = await decideBulkEnrollment(db, params);

  if (valid.length === 0) {
    throw new AppError("NO_VALID_CONTACTS", `None of the ${body.contacts.length} contacts passed validation; see rejected.`, { rejected });
  }
  await assertCreditsFor(db, { organizationId, contacts: valid.length, now });

  const batchId = newUuid();
  const response: TBulkEnrollmentResult = { batchId, total: body.contacts.length, accepted: valid.length, rejected };
  return db.transaction(async (tx) => {
    if (idempotencyKey) {
      // A key older than the replay window is free again.
      await tx
        .update(bulkBatches)
        .set({ idempotencyKey: null })
        .where(
          and(
            eq(bulkBatches.organizationId, organizationId),
            eq(bulkBatches.idempotencyKey, idempotencyKey),
            lte(bulkBatches.createdAt, new Date(now.getTime() - IDEMPOTENCY_WINDOW_MS)),
          ),
        );
    }
    const inserted = await tx
      .insert(bulkBatches)
      .values({
        id: batchId,
        organizationId,
        agentId: agent.agentId,
        idempotencyKey,
        status: "accepted",
        total: body.contacts.length,
        accepted: valid.length,
        response,
        contacts: valid,
        groupByField: rules.groupByField,
        steps: agent.steps,
        agentTimezone: agent.agentTimezone,
        promptVersionId: agent.promptVersionId,
        scheduledBy: agent.scheduledBy,
        createdAt: now,
      })
      .onConflictDoNothing({ target: [bulkBatches.organizationId, bulkBatches.idempotencyKey] })
      .returning({ id: bulkBatches.id });
    if (inserted.length > 0) return { created: true as const, response };
    // Lost a race with the same key: the winner has committed (the insert waited for it); return its body.
    const [winner] = await tx
      .select({ response: bulkBatches.response })
      .from(bulkBatches)
      .where(and(eq(bulkBatches.organizationId, organizationId), eq(bulkBatches.idempotencyKey, idempotencyKey!)));
    if (!winner) throw new Error("enrollMany: idempotency conflict without a winning batch");
    return { created: false as const, response: winner.response as TBulkEnrollmentResult };
  });
}
