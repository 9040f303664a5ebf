import { and, eq } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { providerConnections, type CalendarProvider } from "@/db/schema";
import { decryptSecret, encryptSecret, secretFingerprint } from "@/server/crypto/encryption";
import { invalidField } from "@/server/errors";
import { ChiliPiperClient, ProviderRequestError } from "@/server/providers/chili-piper/client";
import { ulid } from "ulid";

export const CALENDAR_PROVIDER: CalendarProvider = "chili-piper";

/** What anyone may see of a connection: never the key, only its last 4 characters (to match it to the token in Chili Piper). */
export type ProviderConnectionSummary = {
  provider: CalendarProvider;
  keyFingerprint: string;
  /** The key's last 4 characters (shown as "…a1b2"); null for a key stored before hints were kept. */
  keyHint: string | null;
  connectedByUserId: string | null;
  permissions: string[];
  connectedAt: string;
  permissionsCheckedAt: string;
};

type ConnectionRow = typeof providerConnections.$inferSelect;

function summarize(row: ConnectionRow): ProviderConnectionSummary {
  return {
    provider: row.provider,
    keyFingerprint: row.keyFingerprint,
    keyHint: row.keyHint,
    connectedByUserId: row.connectedByUserId,
    permissions: row.permissions,
    connectedAt: row.connectedAt.toISOString(),
    permissionsCheckedAt: row.permissionsCheckedAt.toISOString(),
  };
}

/** Binds the ciphertext to its organization: a copied row does not decrypt elsewhere. */
function encryptionContext(organizationId: string, provider: CalendarProvider): string {
  return `provider-connection:${organizationId}:${provider}`;
}

/** The last 4 characters of a key long enough that they give nothing useful away (none for keys under 16). */
export function keyHint(apiKey: string): string | null {
  return apiKey.length >= 16 ? apiKey.slice(-4) : null;
}

export type ConnectProviderParams = {
  organizationId: string;
  apiKey: string;
  connectedByUserId?: string | null;
  /** Override of the Edge API base URL (tests); default `chiliPiperBaseUrl()`. */
  baseUrl?: string;
  now?: Date;
};

/**
 * Authorizes the organization's scheduling provider once, at organization level (replacing an earlier key).
 * The key is checked against the provider (its permissions are read there) before anything is stored, and stored
 * only encrypted. Raises INVALID_REQUEST when the provider rejects the key; PROVIDER_ERROR/UNAVAILABLE when the
 * provider cannot be asked.
 */
export async function connectProvider(db: DbOrTx, params: ConnectProviderParams): Promise<ProviderConnectionSummary> {
  const apiKey = params.apiKey.trim();
  if (!apiKey) throw invalidField("apiKey", "is required");
  const client = new ChiliPiperClient({ apiKey, baseUrl: params.baseUrl });
  let permissions: string[];
  try {
    permissions = await client.readPermissions();
  } catch (error) {
    if (error instanceof ProviderRequestError && error.providerStatus === 401) {
      throw invalidField("apiKey", "Chili Piper rejected this API key. Generate a token in Chili Piper's Admin Center and try again.");
    }
    throw error;
  }
  const now = params.now ?? new Date();
  const values = {
    encryptedApiKey: encryptSecret(apiKey, encryptionContext(params.organizationId, CALENDAR_PROVIDER)),
    keyFingerprint: secretFingerprint(apiKey),
    keyHint: keyHint(apiKey),
    permissions,
    connectedByUserId: params.connectedByUserId ?? null,
    connectedAt: now,
    permissionsCheckedAt: now,
  };
  const [row] = await db
    .insert(providerConnections)
    .values({ id: `pconn.${ulid().toLowerCase()}`, organizationId: params.organizationId, provider: CALENDAR_PROVIDER, ...values })
    .onConflictDoUpdate({ target: [providerConnections.organizationId, providerConnections.provider], set: values })
    .returning();
  return summarize(row!);
}

export async function getProviderConnection(db: DbOrTx, params: { organizationId: string }): Promise<ProviderConnectionSummary | null> {
  const row = await findConnectionRow(db, params.organizationId);
  return row ? summarize(row) : null;
}

export async function disconnectProvider(db: DbOrTx, params: { organizationId: string }): Promise<{ disconnected: boolean }> {
  const deleted = await db
    .delete(providerConnections)
    .where(and(eq(providerConnections.organizationId, params.organizationId), eq(providerConnections.provider, CALENDAR_PROVIDER)))
    .returning({ id: providerConnections.id });
  return { disconnected: deleted.length > 0 };
}

async function findConnectionRow(db: DbOrTx, organizationId: string): Promise<ConnectionRow | undefined> {
  const [row] = await db
    .select()
    .from(providerConnections)
    .where(and(eq(providerConnections.organizationId, organizationId), eq(providerConnections.provider, CALENDAR_PROVIDER)))
    .limit(1);
  return row;
}

export type OpenedProvider = { client: ChiliPiperClient; connection: ProviderConnectionSummary };

/**
 * A client authenticated with the organization's stored key (decrypted here, in memory, for this use only),
 * or null when the organization has not connected a provider.
 */
export async function openProviderClient(
  db: DbOrTx,
  params: { organizationId: string; baseUrl?: string; timeoutMs?: number },
): Promise<OpenedProvider | null> {
  const row = await findConnectionRow(db, params.organizationId);
  if (!row) return null;
  const apiKey = decryptSecret(row.encryptedApiKey, encryptionContext(params.organizationId, row.provider));
  return {
    client: new ChiliPiperClient({ apiKey, baseUrl: params.baseUrl, timeoutMs: params.timeoutMs }),
    connection: summarize(row),
  };
}

/** Reads the key's permissions from the provider again and remembers them. */
export async function refreshProviderPermissions(
  db: DbOrTx,
  params: { organizationId: string; client: ChiliPiperClient; now?: Date },
): Promise<string[]> {
  const permissions = await params.client.readPermissions();
  await db
    .update(providerConnections)
    .set({ permissions, permissionsCheckedAt: params.now ?? new Date() })
    .where(and(eq(providerConnections.organizationId, params.organizationId), eq(providerConnections.provider, CALENDAR_PROVIDER)));
  return permissions;
}
