import { and, asc, count, eq, inArray, isNull } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { agents, webhookEndpoints, type WebhookEventType } from "@/db/schema";
import { decryptSecret, encryptSecret, secretFingerprint } from "@/server/crypto/encryption";
import { AppError, invalidField } from "@/server/errors";
import { assertHostAllowed, defaultAddressPolicy, type AddressPolicy } from "./address-guard";
import { newWebhookEntityId } from "./ids";
import { generateWebhookSecret } from "./signing";

export const MAX_ENDPOINTS_PER_ORGANIZATION = 20;
export const MAX_URL_LENGTH = 2048;
export const DEFAULT_ROTATION_GRACE_SECONDS = 24 * 3600;
export const MAX_ROTATION_GRACE_SECONDS = 7 * 24 * 3600;

type EndpointRow = typeof webhookEndpoints.$inferSelect;

/** What any API returns about an endpoint: never a secret (those are shown once, on create and rotate). */
export type WebhookEndpointView = {
  endpointId: string;
  url: string;
  description: string;
  enabled: boolean;
  disabledReason: "gone" | "manual" | null;
  disabledAt: string | null;
  agentIds: string[];
  /** What the endpoint receives: `call.result` and/or `number.health_changed`. */
  eventTypes: WebhookEventType[];
  secretFingerprint: string;
  /** Set while a rotated-out secret still signs (its grace period). */
  previousSecretExpiresAt: string | null;
  secretRotatedAt: string | null;
  createdAt: string;
  updatedAt: string;
};

export function toEndpointView(row: EndpointRow, now: Date = new Date()): WebhookEndpointView {
  const graceOpen = row.previousSecretExpiresAt !== null && row.previousSecretExpiresAt > now;
  return {
    endpointId: row.id,
    url: row.url,
    description: row.description,
    enabled: row.enabled,
    disabledReason: row.disabledReason ?? null,
    disabledAt: row.disabledAt?.toISOString() ?? null,
    agentIds: row.agentIds,
    eventTypes: row.eventTypes,
    secretFingerprint: row.secretFingerprint,
    previousSecretExpiresAt: graceOpen ? row.previousSecretExpiresAt!.toISOString() : null,
    secretRotatedAt: row.secretRotatedAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** AAD of an endpoint's secrets: a ciphertext copied onto another endpoint does not decrypt. */
function secretContext(endpointId: string): string {
  return `webhook-endpoint:${endpointId}`;
}

/** Secrets that sign an attempt at `now`: the current one, plus the previous one during its rotation grace period. */
export function signingSecretsOf(row: EndpointRow, now: Date): string[] {
  const secrets = [decryptSecret(row.encryptedSecret, secretContext(row.id))];
  if (row.previousEncryptedSecret && row.previousSecretExpiresAt && row.previousSecretExpiresAt > now) {
    secrets.push(decryptSecret(row.previousEncryptedSecret, secretContext(row.id)));
  }
  return secrets;
}

/**
 * Normalises and checks a webhook URL: http(s), no credentials in it, and (in production mode) a host whose
 * every resolved address is public. Raised as INVALID_REQUEST naming the problem.
 */
export async function validateWebhookUrl(raw: string, policy: AddressPolicy): Promise<string> {
  const value = raw.trim();
  if (value.length > MAX_URL_LENGTH) throw invalidField("url", `at most ${MAX_URL_LENGTH} characters.`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalidField("url", "not a valid absolute URL.");
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw invalidField("url", "must be http or https.");
  if (url.username || url.password) throw invalidField("url", "must not contain credentials.");
  if (!url.hostname) throw invalidField("url", "has no host.");
  url.hash = "";
  try {
    await assertHostAllowed(url.hostname, policy);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const code = (error as NodeJS.ErrnoException).code;
    throw invalidField("url", code === "ENOTFOUND" || code === "EAI_AGAIN" ? `${url.hostname} does not resolve.` : message);
  }
  return url.toString();
}

/** Agent filter: unique IDs, every one an agent of this organization (else AGENT_NOT_FOUND). */
async function normaliseAgentIds(db: DbOrTx, organizationId: string, agentIds: string[] | undefined): Promise<string[]> {
  const unique = [...new Set(agentIds ?? [])];
  if (unique.length === 0) return [];
  const found = await db
    .select({ id: agents.id })
    .from(agents)
    .where(and(eq(agents.organizationId, organizationId), inArray(agents.id, unique)));
  const known = new Set(found.map((row) => row.id));
  const missing = unique.find((id) => !known.has(id));
  if (missing) throw new AppError("AGENT_NOT_FOUND", `Agent ${missing} was not found.`);
  return unique;
}

/** Event types of an endpoint: unique, at least one (INVALID_REQUEST otherwise); default: call results only. */
function normaliseEventTypes(eventTypes: WebhookEventType[] | undefined): WebhookEventType[] | undefined {
  if (eventTypes === undefined) return undefined;
  const unique = [...new Set(eventTypes)];
  if (unique.length === 0) throw new AppError("INVALID_REQUEST", "eventTypes: choose at least one event type.");
  return unique;
}

export type CreateWebhookEndpointParams = {
  organizationId: string;
  url: string;
  description?: string;
  agentIds?: string[];
  /** Default `["call.result"]`. */
  eventTypes?: WebhookEventType[];
  createdByUserId?: string | null;
  now?: Date;
  policy?: AddressPolicy;
};

/** Creates an endpoint with a fresh `whsec_` secret, returned here and never again. */
export async function createWebhookEndpoint(db: DbOrTx, params: CreateWebhookEndpointParams) {
  const now = params.now ?? new Date();
  const url = await validateWebhookUrl(params.url, params.policy ?? defaultAddressPolicy());
  const agentIds = await normaliseAgentIds(db, params.organizationId, params.agentIds);
  const eventTypes = normaliseEventTypes(params.eventTypes) ?? ["call.result"];
  const [existing] = await db
    .select({ total: count() })
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.organizationId, params.organizationId), isNull(webhookEndpoints.deletedAt)));
  if ((existing?.total ?? 0) >= MAX_ENDPOINTS_PER_ORGANIZATION) {
    throw new AppError("CONFLICT", `An organization can have at most ${MAX_ENDPOINTS_PER_ORGANIZATION} webhook endpoints.`);
  }
  const id = newWebhookEntityId("webhook-endpoint");
  const secret = generateWebhookSecret();
  const [row] = await db
    .insert(webhookEndpoints)
    .values({
      id,
      organizationId: params.organizationId,
      url,
      description: params.description?.trim() ?? "",
      encryptedSecret: encryptSecret(secret, secretContext(id)),
      secretFingerprint: secretFingerprint(secret),
      agentIds,
      eventTypes,
      createdByUserId: params.createdByUserId ?? null,
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  return { endpoint: toEndpointView(row!, now), secret };
}

export async function listWebhookEndpoints(db: DbOrTx, params: { organizationId: string; now?: Date }) {
  const rows = await db
    .select()
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.organizationId, params.organizationId), isNull(webhookEndpoints.deletedAt)))
    .orderBy(asc(webhookEndpoints.createdAt), asc(webhookEndpoints.id));
  return rows.map((row) => toEndpointView(row, params.now));
}

/** The endpoint, scoped to the organization; another organization's endpoint is reported as unknown (NOT_FOUND). */
export async function getWebhookEndpointRow(db: DbOrTx, params: { organizationId: string; endpointId: string }): Promise<EndpointRow> {
  const rows = await db
    .select()
    .from(webhookEndpoints)
    .where(
      and(
        eq(webhookEndpoints.id, params.endpointId),
        eq(webhookEndpoints.organizationId, params.organizationId),
        isNull(webhookEndpoints.deletedAt),
      ),
    )
    .limit(1);
  if (!rows[0]) throw new AppError("NOT_FOUND", `Webhook endpoint ${params.endpointId} was not found.`);
  return rows[0];
}

export async function getWebhookEndpoint(db: DbOrTx, params: { organizationId: string; endpointId: string; now?: Date }) {
  return toEndpointView(await getWebhookEndpointRow(db, params), params.now);
}

export type UpdateWebhookEndpointParams = {
  organizationId: string;
  endpointId: string;
  url?: string;
  description?: string;
  agentIds?: string[];
  eventTypes?: WebhookEventType[];
  /** Re-enabling clears the disabled reason (e.g. after a 410 Gone); it does not resend what was missed (use replay). */
  enabled?: boolean;
  now?: Date;
  policy?: AddressPolicy;
};

export async function updateWebhookEndpoint(db: DbOrTx, params: UpdateWebhookEndpointParams) {
  const now = params.now ?? new Date();
  const current = await getWebhookEndpointRow(db, params);
  const changes: Partial<typeof webhookEndpoints.$inferInsert> = { updatedAt: now };
  if (params.url !== undefined) changes.url = await validateWebhookUrl(params.url, params.policy ?? defaultAddressPolicy());
  if (params.description !== undefined) changes.description = params.description.trim();
  if (params.agentIds !== undefined) changes.agentIds = await normaliseAgentIds(db, params.organizationId, params.agentIds);
  if (params.eventTypes !== undefined) changes.eventTypes = normaliseEventTypes(params.eventTypes);
  if (params.enabled !== undefined && params.enabled !== current.enabled) {
    changes.enabled = params.enabled;
    changes.disabledReason = params.enabled ? null : "manual";
    changes.disabledAt = params.enabled ? null : now;
  }
  const [row] = await db
    .update(webhookEndpoints)
    .set(changes)
    .where(and(eq(webhookEndpoints.id, current.id), eq(webhookEndpoints.organizationId, params.organizationId)))
    .returning();
  return toEndpointView(row!, now);
}

export async function disableWebhookEndpoint(db: DbOrTx, params: { organizationId: string; endpointId: string; now?: Date }) {
  return updateWebhookEndpoint(db, { ...params, enabled: false });
}

/** Soft delete: no further deliveries (pending retries are cancelled); its delivery log stays readable. */
export async function deleteWebhookEndpoint(db: DbOrTx, params: { organizationId: string; endpointId: string; now?: Date }) {
  const now = params.now ?? new Date();
  const current = await getWebhookEndpointRow(db, params);
  await db
    .update(webhookEndpoints)
    .set({ deletedAt: now, enabled: false, disabledAt: current.disabledAt ?? now, disabledReason: current.disabledReason ?? "manual", updatedAt: now })
    .where(and(eq(webhookEndpoints.id, current.id), eq(webhookEndpoints.organizationId, params.organizationId)));
  return { endpointId: current.id, deleted: true as const };
}

export type RotateWebhookSecretParams = {
  organizationId: string;
  endpointId: string;
  /** How long the old secret keeps signing next to the new one (0 = retire it at once). Default 24 h, at most 7 days. */
  graceSeconds?: number;
  now?: Date;
};

/**
 * Replaces the secret and returns the new one (shown once). During the grace period every delivery carries two
 * signatures, one per secret, so receivers can switch to the new secret at their own pace.
 */
export async function rotateWebhookSecret(db: DbOrTx, params: RotateWebhookSecretParams) {
  const now = params.now ?? new Date();
  const graceSeconds = params.graceSeconds ?? DEFAULT_ROTATION_GRACE_SECONDS;
  if (!Number.isInteger(graceSeconds) || graceSeconds < 0 || graceSeconds > MAX_ROTATION_GRACE_SECONDS) {
    throw invalidField("graceSeconds", `an integer from 0 to ${MAX_ROTATION_GRACE_SECONDS}.`);
  }
  const current = await getWebhookEndpointRow(db, params);
  const secret = generateWebhookSecret();
  const [row] = await db
    .update(webhookEndpoints)
    .set({
      encryptedSecret: encryptSecret(secret, secretContext(current.id)),
      secretFingerprint: secretFingerprint(secret),
      previousEncryptedSecret: graceSeconds > 0 ? current.encryptedSecret : null,
      previousSecretExpiresAt: graceSeconds > 0 ? new Date(now.getTime() + graceSeconds * 1000) : null,
      secretRotatedAt: now,
      updatedAt: now,
    })
    .where(and(eq(webhookEndpoints.id, current.id), eq(webhookEndpoints.organizationId, params.organizationId)))
    .returning();
  return { endpoint: toEndpointView(row!, now), secret };
}
