import { eq } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { apiKeys, organizations } from "@/db/schema";
import { hashApiKey, hashesEqual, keyPrefix, looksLikeApiKey } from "./api-key-crypto";

export type VerifiedKey = { keyId: string; organizationId: string; orgId: string };

type CacheEntry = { value: VerifiedKey; keyHash: string; expiresAt: number };

/**
 * Verified keys are cached for a few seconds so the hot read path does one query, not two.
 * Revocation in this process clears the entry at once; other instances see it within CACHE_TTL_MS.
 */
const CACHE_TTL_MS = 5_000;
const LAST_USED_EVERY_MS = 60_000;
// On globalThis: the /api/v1 fast path (server/http/node-server.ts) and Next's bundle load separate copies of this
// module in one process, and a revocation made through the dashboard must clear the cache the API reads.
const shared = globalThis as unknown as { __apiKeyCache?: Map<string, CacheEntry>; __apiKeyLastUsed?: Map<string, number> };
const cache = (shared.__apiKeyCache ??= new Map<string, CacheEntry>());
const lastUsedWritten = (shared.__apiKeyLastUsed ??= new Map<string, number>());

export function forgetApiKey(keyId: string): void {
  for (const [hash, entry] of cache) if (entry.value.keyId === keyId) cache.delete(hash);
}

export async function findOrganizationByApiKey(db: DbOrTx, key: string, now: Date): Promise<VerifiedKey | null> {
  if (!looksLikeApiKey(key)) return null;
  const keyHash = hashApiKey(key);
  const cached = cache.get(keyHash);
  if (cached && cached.expiresAt > now.getTime()) return cached.value;

  const rows = await db
    .select({
      keyId: apiKeys.id,
      keyHash: apiKeys.keyHash,
      revokedAt: apiKeys.revokedAt,
      organizationId: apiKeys.organizationId,
      orgId: organizations.orgId,
    })
    .from(apiKeys)
    .innerJoin(organizations, eq(organizations.id, apiKeys.organizationId))
    .where(eq(apiKeys.prefix, keyPrefix(key)))
    .limit(1);
  const row = rows[0];
  // Compared by hash in constant time; the prefix lookup only narrows the candidate row.
  if (!row || row.revokedAt || !hashesEqual(row.keyHash, keyHash)) {
    cache.delete(keyHash);
    return null;
  }
  const value: VerifiedKey = { keyId: row.keyId, organizationId: row.organizationId, orgId: row.orgId };
  cache.set(keyHash, { value, keyHash, expiresAt: now.getTime() + CACHE_TTL_MS });
  touchLastUsed(db, row.keyId, now);
  return value;
}

function touchLastUsed(db: DbOrTx, keyId: string, now: Date): void {
  const last = lastUsedWritten.get(keyId) ?? 0;
  if (now.getTime() - last < LAST_USED_EVERY_MS) return;
  lastUsedWritten.set(keyId, now.getTime());
  void db
    .update(apiKeys)
    .set({ lastUsedAt: now })
    .where(eq(apiKeys.id, keyId))
    .catch(() => lastUsedWritten.delete(keyId));
}
