import { and, eq, inArray, isNull, sql } from "drizzle-orm";
import type { Db, DbOrTx } from "@/db";
import { apiKeys, organizations } from "@/db/schema";
import { hashApiKey, hashesEqual, keyPrefix, looksLikeApiKey } from "./api-key-crypto";
import { processSingleton } from "@/server/runtime/process-singleton";

export type VerifiedKey = { keyId: string; organizationId: string; orgId: string };

/** `expiresAt`: the entry is trusted until then (epoch ms); `usedAt`: last request that used it (wall clock). */
type CacheEntry = { value: VerifiedKey; keyHash: string; expiresAt: number; usedAt: number };

/**
 * Verified keys are cached so the hot read path does one query, not two: an entry is trusted for CACHE_TTL_MS
 * after a check that began while the key was live. Revocation in this process clears the entry at once; other
 * instances stop accepting the key within CACHE_TTL_MS.
 *
 * Keys in use are re-checked together (revalidateApiKeys): one statement every REVALIDATE_EVERY_MS for all the keys
 * used in the last CACHE_TTL_MS, instead of one lookup per key and TTL on the request path (with hundreds of keys
 * in use, a fifth of API requests paid a second query). The bound is unchanged: a key revoked at time R was seen
 * live by no check that began after R, so its entry expires before R + CACHE_TTL_MS.
 */
export const CACHE_TTL_MS = 5_000;
export const REVALIDATE_EVERY_MS = 2_000;
/** Entries unused for this long are dropped at the next pass (the cache holds only keys in use). */
const IDLE_EVICT_MS = 60_000;
/** Ids per revalidation statement. */
const REVALIDATE_BATCH = 1_000;
const LAST_USED_EVERY_MS = 60_000;
// Process-wide (server/runtime/process-singleton.ts): the /api/v1 fast path (server/http/node-server.ts) and Next's
// bundle load separate copies of this module in one process, and a revocation made through the dashboard must clear
// the cache the API reads.
const shared = processSingleton("apiKeyVerification", () => ({
  cache: new Map<string, CacheEntry>(),
  lastUsed: new Map<string, number>(),
  revalidation: undefined as { db: Db; timer: NodeJS.Timeout; running: boolean } | undefined,
}));
const cache = shared.cache;
const lastUsedWritten = shared.lastUsed;

export function forgetApiKey(keyId: string): void {
  for (const [hash, entry] of cache) if (entry.value.keyId === keyId) cache.delete(hash);
}

/**
 * The lookup by prefix, built once per database handle: with many keys in use (each re-verified every CACHE_TTL_MS)
 * this query runs on a good share of API requests, and building its SQL cost more than the database's answer.
 */
const preparedLookups = new WeakMap<DbOrTx, ReturnType<typeof prepareLookup>>();

function prepareLookup(db: DbOrTx) {
  return db
    .select({
      keyId: apiKeys.id,
      keyHash: apiKeys.keyHash,
      revokedAt: apiKeys.revokedAt,
      organizationId: apiKeys.organizationId,
      orgId: organizations.orgId,
    })
    .from(apiKeys)
    .innerJoin(organizations, eq(organizations.id, apiKeys.organizationId))
    .where(eq(apiKeys.prefix, sql.placeholder("prefix")))
    .limit(1)
    .prepare("find_api_key_by_prefix");
}

export async function findOrganizationByApiKey(db: DbOrTx, key: string, now: Date): Promise<VerifiedKey | null> {
  if (!looksLikeApiKey(key)) return null;
  const keyHash = hashApiKey(key);
  const cached = cache.get(keyHash);
  if (cached && cached.expiresAt > now.getTime()) {
    cached.usedAt = Date.now();
    // A key that stays in use stays cached (revalidateApiKeys): its last use is recorded from here too.
    touchLastUsed(db, cached.value.keyId, now);
    return cached.value;
  }

  let lookup = preparedLookups.get(db);
  if (!lookup) preparedLookups.set(db, (lookup = prepareLookup(db)));
  const rows = await lookup.execute({ prefix: keyPrefix(key) });
  const row = rows[0];
  // Compared by hash in constant time; the prefix lookup only narrows the candidate row.
  if (!row || row.revokedAt || !hashesEqual(row.keyHash, keyHash)) {
    cache.delete(keyHash);
    return null;
  }
  const value: VerifiedKey = { keyId: row.keyId, organizationId: row.organizationId, orgId: row.orgId };
  cache.set(keyHash, { value, keyHash, expiresAt: now.getTime() + CACHE_TTL_MS, usedAt: Date.now() });
  scheduleRevalidation(db);
  touchLastUsed(db, row.keyId, now);
  return value;
}

/** The periodic re-check runs on the database the keys were verified on (the app's; a transaction is not kept). */
function scheduleRevalidation(db: DbOrTx): void {
  if (!("transaction" in db) || !("$client" in db)) return;
  const state = shared.revalidation;
  if (state) {
    state.db = db as Db;
    return;
  }
  const timer = setInterval(() => {
    const current = shared.revalidation!;
    if (current.running) return;
    current.running = true;
    void revalidateApiKeys(current.db)
      .catch(() => {})
      .finally(() => (current.running = false));
  }, REVALIDATE_EVERY_MS);
  timer.unref();
  shared.revalidation = { db: db as Db, timer, running: false };
}

/**
 * One pass: the keys used in the last CACHE_TTL_MS are checked in one statement per REVALIDATE_BATCH ids; the live
 * ones are trusted for CACHE_TTL_MS from the moment the check began, revoked or deleted ones leave the cache at
 * once, and entries idle for IDLE_EVICT_MS are dropped. Returns how many entries it renewed and dropped.
 */
export async function revalidateApiKeys(db: DbOrTx): Promise<{ renewed: number; dropped: number }> {
  const started = Date.now();
  const due: Array<[string, CacheEntry]> = [];
  let dropped = 0;
  for (const [hash, entry] of cache) {
    if (started - entry.usedAt > IDLE_EVICT_MS) {
      cache.delete(hash);
      dropped++;
    } else if (started - entry.usedAt <= CACHE_TTL_MS) due.push([hash, entry]);
  }
  let renewed = 0;
  for (let i = 0; i < due.length; i += REVALIDATE_BATCH) {
    const batch = due.slice(i, i + REVALIDATE_BATCH);
    const ids = [...new Set(batch.map(([, entry]) => entry.value.keyId))];
    const live = await db
      .select({ id: apiKeys.id })
      .from(apiKeys)
      .where(and(inArray(apiKeys.id, ids), isNull(apiKeys.revokedAt)));
    const liveIds = new Set(live.map((row) => row.id));
    for (const [hash, entry] of batch) {
      // forgetApiKey may have removed it meanwhile (revoked here): never put it back.
      if (cache.get(hash) !== entry) continue;
      if (liveIds.has(entry.value.keyId)) {
        entry.expiresAt = Math.max(entry.expiresAt, started + CACHE_TTL_MS);
        renewed++;
      } else {
        cache.delete(hash);
        dropped++;
      }
    }
  }
  return { renewed, dropped };
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
