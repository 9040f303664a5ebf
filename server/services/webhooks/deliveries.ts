import { and, asc, desc, eq, inArray, isNull, lt, or, sql } from "drizzle-orm";
import type { Db, DbOrTx } from "@/db";
import { webhookDeliveries, webhookDeliveryAttempts, webhookEndpoints, type WebhookAttemptTrigger, type WebhookDeliveryKind, type WebhookDeliveryStatus } from "@/db/schema";
import { AppError } from "@/server/errors";
import { findCallMetadataRow } from "@/db/queries/calls";
import { getLogger } from "@/server/observability/logger";
import { recordWebhookAttempt } from "@/server/observability/metrics";
import { toCallEventPayload } from "@/server/services/calls/call-metadata";
import { recordCallResultEvent } from "@/server/services/events/record-call-result-event";
import { defaultAddressPolicy, type AddressPolicy } from "./address-guard";
import { postWebhook, WEBHOOK_TIMEOUT_MS } from "./http-sender";
import { newWebhookEntityId } from "./ids";
import { getWebhookEndpointRow, signingSecretsOf } from "./manage-endpoints";
import { MAX_AUTOMATIC_ATTEMPTS, retryDelayAfter } from "./retry-schedule";
import { messageIdForCall, signWebhook } from "./signing";

export type CreateCallDeliveriesParams = { callId: string; now?: Date };

/**
 * Records the call's result in the events feed (whether or not there are endpoints), then creates one delivery per
 * enabled endpoint of the call's organization whose agent filter matches, with the feed event's body — the call's
 * result payload, frozen once — as the body every attempt sends. Idempotent: a redelivered `call/analyzed` creates
 * nothing new (one event per call, unique endpoint + call). Returns only the deliveries created now. Internal: no
 * organization scoping.
 */
export async function createCallDeliveries(db: DbOrTx, params: CreateCallDeliveriesParams): Promise<{ deliveryIds: string[] }> {
  const now = params.now ?? new Date();
  const row = await findCallMetadataRow(db, { callId: params.callId, organizationId: null });
  if (!row) return { deliveryIds: [] };
  const call = row.call;
  const messageId = messageIdForCall(call.id);
  const { body } = await recordCallResultEvent(db, {
    organizationId: call.organizationId,
    agentId: call.agentId,
    callId: call.id,
    messageId,
    body: JSON.stringify(toCallEventPayload(row)),
    now,
  });
  const endpoints = await db
    .select({ id: webhookEndpoints.id })
    .from(webhookEndpoints)
    .where(
      and(
        eq(webhookEndpoints.organizationId, call.organizationId),
        eq(webhookEndpoints.enabled, true),
        isNull(webhookEndpoints.deletedAt),
        or(sql`${webhookEndpoints.agentIds} = '[]'::jsonb`, sql`${webhookEndpoints.agentIds} ? ${call.agentId}`),
      ),
    );
  if (endpoints.length === 0) return { deliveryIds: [] };
  const inserted = await db
    .insert(webhookDeliveries)
    .values(
      endpoints.map((endpoint) => ({
        id: newWebhookEntityId("webhook-delivery"),
        organizationId: call.organizationId,
        endpointId: endpoint.id,
        kind: "call.result" as const,
        callId: call.id,
        agentId: call.agentId,
        messageId,
        body,
        status: "pending" as const,
        nextAttemptAt: now,
        createdAt: now,
        updatedAt: now,
      })),
    )
    .onConflictDoNothing({ target: [webhookDeliveries.endpointId, webhookDeliveries.callId], where: sql`kind = 'call.result'` })
    .returning({ id: webhookDeliveries.id });
  return { deliveryIds: inserted.map((delivery) => delivery.id) };
}

export type AttemptResult = {
  /** `retry`: failed, the next automatic attempt is due in `retryInMs`. */
  outcome: "succeeded" | "retry" | "failed" | "cancelled";
  attemptNumber: number | null;
  statusCode: number | null;
  error: string | null;
  retryInMs: number | null;
  endpointDisabled: boolean;
};

export type AttemptWebhookDeliveryParams = {
  deliveryId: string;
  trigger: WebhookAttemptTrigger;
  /** 1-based index of this automatic attempt (decides the next retry delay); automatic attempts only. */
  automaticAttempt?: number;
  now?: Date;
  policy?: AddressPolicy;
  timeoutMs?: number;
};

function isSuccess(statusCode: number | null): boolean {
  return statusCode !== null && statusCode >= 200 && statusCode < 300;
}

/**
 * Sends the delivery once and records the attempt. Never throws for receiver failures (they are outcomes); throws
 * only when our own database fails, so the step is retried by the runner.
 * Automatic attempts stop quietly when the delivery is already settled (e.g. a replay succeeded) or the endpoint
 * was disabled or deleted in the meantime (the delivery becomes `cancelled`).
 */
export async function attemptWebhookDelivery(db: Db, params: AttemptWebhookDeliveryParams): Promise<AttemptResult> {
  const now = params.now ?? new Date();
  const policy = params.policy ?? defaultAddressPolicy();
  const [found] = await db
    .select({ delivery: webhookDeliveries, endpoint: webhookEndpoints })
    .from(webhookDeliveries)
    .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
    .where(eq(webhookDeliveries.id, params.deliveryId))
    .limit(1);
  if (!found) throw new AppError("NOT_FOUND", `Webhook delivery ${params.deliveryId} was not found.`);
  const { delivery, endpoint } = found;
  const settled = (outcome: AttemptResult["outcome"]): AttemptResult => ({
    outcome,
    attemptNumber: null,
    statusCode: delivery.lastStatusCode,
    error: delivery.lastError,
    retryInMs: null,
    endpointDisabled: !endpoint.enabled,
  });

  if (params.trigger === "automatic") {
    if (delivery.status !== "pending") return settled(delivery.status);
    if (!endpoint.enabled || endpoint.deletedAt) {
      await db
        .update(webhookDeliveries)
        .set({ status: "cancelled", nextAttemptAt: null, updatedAt: now })
        .where(and(eq(webhookDeliveries.id, delivery.id), eq(webhookDeliveries.status, "pending")));
      return settled("cancelled");
    }
  }

  const headers = signWebhook({ secrets: signingSecretsOf(endpoint, now), messageId: delivery.messageId, timestamp: now, body: delivery.body });
  const response = await postWebhook({
    url: endpoint.url,
    headers,
    body: delivery.body,
    policy,
    timeoutMs: params.timeoutMs ?? WEBHOOK_TIMEOUT_MS,
    now: () => now,
  });
  const succeeded = isSuccess(response.statusCode);
  const gone = response.statusCode === 410;

  let outcome: AttemptResult["outcome"];
  let retryInMs: number | null = null;
  let status: WebhookDeliveryStatus;
  if (succeeded) {
    outcome = "succeeded";
    status = "succeeded";
  } else if (params.trigger === "automatic") {
    retryInMs = gone ? null : retryDelayAfter(params.automaticAttempt ?? MAX_AUTOMATIC_ATTEMPTS, response.retryAfterMs);
    outcome = retryInMs === null ? "failed" : "retry";
    status = retryInMs === null ? "failed" : "pending";
  } else if (params.trigger === "test") {
    outcome = "failed";
    status = "failed";
  } else {
    // A failed replay leaves the delivery as it was (still pending retries, or failed), unless the endpoint is gone.
    outcome = "failed";
    status = gone && delivery.status === "pending" ? "failed" : delivery.status;
  }
  const nextAttemptAt = retryInMs === null ? null : new Date(now.getTime() + retryInMs);
  const error = gone ? "The endpoint answered 410 Gone: it has been disabled." : response.error;

  // One statement (atomic, one round trip) bumps the delivery's count and records the attempt under that number.
  // A delivery that already succeeded (e.g. a concurrent replay) stays succeeded; a replay or test send leaves the
  // automatic schedule (next_attempt_at) of a still-pending delivery as it was.
  const recordAttempt = async (executor: DbOrTx) => {
    const at = now.toISOString();
    const next = nextAttemptAt?.toISOString() ?? null;
    const rows = await executor.execute<{ attempt_number: number }>(sql`
      with updated as (
        update webhook_deliveries set
          attempt_count = attempt_count + 1,
          status = case when status = 'succeeded' then 'succeeded' else ${status}::text end,
          last_status_code = ${response.statusCode}::integer,
          last_error = ${error}::text,
          last_attempt_at = ${at}::timestamptz,
          next_attempt_at = case
            when status = 'succeeded' or ${status}::text <> 'pending' then null
            when ${params.trigger === "automatic"}::boolean then ${next}::timestamptz
            else next_attempt_at
          end,
          succeeded_at = case when ${succeeded}::boolean then coalesce(succeeded_at, ${at}::timestamptz) else succeeded_at end,
          updated_at = ${at}::timestamptz
        where id = ${delivery.id}
        returning attempt_count, organization_id
      )
      insert into webhook_delivery_attempts (id, delivery_id, organization_id, attempt_number, trigger, url, webhook_timestamp,
        attempted_at, duration_ms, status_code, succeeded, response_snippet, error, next_attempt_at)
      select ${newWebhookEntityId("webhook-attempt")}::text, ${delivery.id}::text, organization_id, attempt_count, ${params.trigger}::text,
        ${endpoint.url}::text, ${Number(headers["webhook-timestamp"])}::integer, ${at}::timestamptz, ${response.durationMs}::integer,
        ${response.statusCode}::integer, ${succeeded}::boolean, ${response.responseSnippet}::text, ${error}::text, ${next}::timestamptz
      from updated
      returning attempt_number`);
    return Number(rows[0]!.attempt_number);
  };
  const attemptNumber = gone
    ? await db.transaction(async (tx) => {
        const number = await recordAttempt(tx);
        await tx
          .update(webhookEndpoints)
          .set({ enabled: false, disabledReason: "gone", disabledAt: now, updatedAt: now })
          .where(and(eq(webhookEndpoints.id, endpoint.id), eq(webhookEndpoints.enabled, true)));
        return number;
      })
    : await recordAttempt(db);

  recordWebhookAttempt({ outcome, trigger: params.trigger, seconds: response.durationMs / 1000 });
  // The endpoint's URL stays out of the log (receivers put tokens in URLs); its ID identifies it.
  getLogger("webhooks")[outcome === "succeeded" ? "info" : "warn"](
    {
      deliveryId: delivery.id,
      endpointId: endpoint.id,
      trigger: params.trigger,
      attempt: attemptNumber,
      statusCode: response.statusCode,
      durationMs: response.durationMs,
      outcome,
      ...(retryInMs !== null ? { retryInMs } : {}),
      ...(error ? { error: error.slice(0, 300) } : {}),
    },
    "webhook delivery attempt",
  );
  return { outcome, attemptNumber, statusCode: response.statusCode, error, retryInMs, endpointDisabled: gone || !endpoint.enabled };
}

export type ReplayWebhookDeliveryParams = { organizationId: string; deliveryId: string; now?: Date; policy?: AddressPolicy };

/**
 * Sends a past delivery again, now: the same body and `webhook-id`, a new timestamp and signature (with the
 * endpoint's current secrets). Recorded as a `replay` attempt; a success settles a failed or pending delivery.
 */
export async function replayWebhookDelivery(db: Db, params: ReplayWebhookDeliveryParams) {
  const delivery = await getDeliveryRow(db, params);
  await getWebhookEndpointRow(db, { organizationId: params.organizationId, endpointId: delivery.endpointId });
  const result = await attemptWebhookDelivery(db, { deliveryId: delivery.id, trigger: "replay", now: params.now, policy: params.policy });
  return { deliveryId: delivery.id, ...result };
}

async function getDeliveryRow(db: DbOrTx, params: { organizationId: string; deliveryId: string }) {
  const [row] = await db
    .select()
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.id, params.deliveryId), eq(webhookDeliveries.organizationId, params.organizationId)))
    .limit(1);
  if (!row) throw new AppError("NOT_FOUND", `Webhook delivery ${params.deliveryId} was not found.`);
  return row;
}

export type WebhookDeliverySummary = {
  deliveryId: string;
  endpointId: string;
  kind: WebhookDeliveryKind;
  callId: string | null;
  agentId: string | null;
  messageId: string;
  status: WebhookDeliveryStatus;
  attemptCount: number;
  lastStatusCode: number | null;
  lastError: string | null;
  lastAttemptAt: string | null;
  nextAttemptAt: string | null;
  succeededAt: string | null;
  createdAt: string;
};

function toDeliverySummary(row: typeof webhookDeliveries.$inferSelect): WebhookDeliverySummary {
  return {
    deliveryId: row.id,
    endpointId: row.endpointId,
    kind: row.kind,
    callId: row.callId,
    agentId: row.agentId,
    messageId: row.messageId,
    status: row.status,
    attemptCount: row.attemptCount,
    lastStatusCode: row.lastStatusCode,
    lastError: row.lastError,
    lastAttemptAt: row.lastAttemptAt?.toISOString() ?? null,
    nextAttemptAt: row.nextAttemptAt?.toISOString() ?? null,
    succeededAt: row.succeededAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
  };
}

export type ListWebhookDeliveriesParams = {
  organizationId: string;
  endpointId?: string;
  callId?: string;
  status?: WebhookDeliveryStatus;
  /** Page size, 1–100 (default 50). */
  limit?: number;
  /** The `nextCursor` of the previous page. */
  cursor?: string;
};

/** Newest first, paged by delivery ID (time-ordered). */
export async function listWebhookDeliveries(db: DbOrTx, params: ListWebhookDeliveriesParams) {
  const limit = Math.min(Math.max(params.limit ?? 50, 1), 100);
  const rows = await db
    .select()
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.organizationId, params.organizationId),
        params.endpointId ? eq(webhookDeliveries.endpointId, params.endpointId) : undefined,
        params.callId ? eq(webhookDeliveries.callId, params.callId) : undefined,
        params.status ? eq(webhookDeliveries.status, params.status) : undefined,
        params.cursor ? lt(webhookDeliveries.id, params.cursor) : undefined,
      ),
    )
    .orderBy(desc(webhookDeliveries.id))
    .limit(limit + 1);
  const page = rows.slice(0, limit);
  return { deliveries: page.map(toDeliverySummary), nextCursor: rows.length > limit ? page[page.length - 1]!.id : null };
}

/** One delivery with its body and every attempt (oldest first). */
export async function getWebhookDelivery(db: DbOrTx, params: { organizationId: string; deliveryId: string }) {
  const row = await getDeliveryRow(db, params);
  const attempts = await db
    .select()
    .from(webhookDeliveryAttempts)
    .where(and(eq(webhookDeliveryAttempts.deliveryId, row.id), eq(webhookDeliveryAttempts.organizationId, params.organizationId)))
    .orderBy(asc(webhookDeliveryAttempts.attemptNumber));
  return {
    ...toDeliverySummary(row),
    body: row.body,
    attempts: attempts.map((attempt) => ({
      attemptId: attempt.id,
      attemptNumber: attempt.attemptNumber,
      trigger: attempt.trigger,
      url: attempt.url,
      webhookTimestamp: attempt.webhookTimestamp,
      attemptedAt: attempt.attemptedAt.toISOString(),
      durationMs: attempt.durationMs,
      statusCode: attempt.statusCode,
      succeeded: attempt.succeeded,
      responseSnippet: attempt.responseSnippet,
      error: attempt.error,
      nextAttemptAt: attempt.nextAttemptAt?.toISOString() ?? null,
    })),
  };
}

export type DeliverCallResultsParams = {
  callIds: string[];
  now: () => Date;
  policy?: AddressPolicy;
  /** Deliveries sent at once (default 16). */
  concurrency?: number;
};

/**
 * For a batch of analysed calls: creates their deliveries (one per matching endpoint, body frozen now) and makes the
 * first automatic attempt of each at once, `concurrency` at a time. Returns the deliveries that need a retry (with its
 * delay), for their own retry runs. Crash-safe: a rerun creates nothing twice and attempts only the deliveries of these
 * calls that were never attempted, so nothing is lost and a delivered webhook is not sent again by this step.
 */
export async function deliverCallResults(db: Db, params: DeliverCallResultsParams): Promise<{ created: number; succeeded: number; retries: Array<{ deliveryId: string; retryInMs: number }> }> {
  let created = 0;
  for (const callId of params.callIds) created += (await createCallDeliveries(db, { callId, now: params.now() })).deliveryIds.length;
  if (params.callIds.length === 0) return { created, succeeded: 0, retries: [] };
  const fresh = await db
    .select({ id: webhookDeliveries.id })
    .from(webhookDeliveries)
    .where(
      and(
        inArray(webhookDeliveries.callId, params.callIds),
        eq(webhookDeliveries.kind, "call.result"),
        eq(webhookDeliveries.status, "pending"),
        eq(webhookDeliveries.attemptCount, 0),
      ),
    );
  const retries: Array<{ deliveryId: string; retryInMs: number }> = [];
  let succeeded = 0;
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(params.concurrency ?? 16, fresh.length) }, async () => {
      while (next < fresh.length) {
        const deliveryId = fresh[next++]!.id;
        const result = await attemptWebhookDelivery(db, { deliveryId, trigger: "automatic", automaticAttempt: 1, now: params.now(), policy: params.policy });
        if (result.outcome === "succeeded") succeeded += 1;
        if (result.outcome === "retry" && result.retryInMs !== null) retries.push({ deliveryId, retryInMs: result.retryInMs });
      }
    }),
  );
  return { created, succeeded, retries };
}
