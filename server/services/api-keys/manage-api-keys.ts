import { and, desc, eq, isNull } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { apiKeys } from "@/db/schema";
import { AppError } from "@/server/errors";
import { newId } from "@/server/ids";
import { generateApiKey } from "./api-key-crypto";
import { forgetApiKey } from "./verify-api-key";

export type CreateApiKeyParams = { organizationId: string; name: string; createdByUserId?: string | null };

/** Creates a key and returns it in full exactly once; only its hash and visible prefix are stored. */
export async function createApiKey(db: DbOrTx, params: CreateApiKeyParams) {
  const generated = generateApiKey();
  const [row] = await db
    .insert(apiKeys)
    .values({
      id: newId("key"),
      organizationId: params.organizationId,
      name: params.name.trim() || "API key",
      prefix: generated.prefix,
      keyHash: generated.keyHash,
      createdByUserId: params.createdByUserId ?? null,
    })
    .returning({ id: apiKeys.id, name: apiKeys.name, prefix: apiKeys.prefix, createdAt: apiKeys.createdAt });
  return { ...row!, key: generated.key };
}

export async function listApiKeys(db: DbOrTx, params: { organizationId: string }) {
  return db
    .select({
      id: apiKeys.id,
      name: apiKeys.name,
      prefix: apiKeys.prefix,
      createdAt: apiKeys.createdAt,
      lastUsedAt: apiKeys.lastUsedAt,
      revokedAt: apiKeys.revokedAt,
    })
    .from(apiKeys)
    .where(eq(apiKeys.organizationId, params.organizationId))
    .orderBy(desc(apiKeys.createdAt));
}

/** Revocation takes effect at once in this process (cache cleared) and within seconds elsewhere. */
export async function revokeApiKey(db: DbOrTx, params: { organizationId: string; keyId: string; now: Date }) {
  const rows = await db
    .update(apiKeys)
    .set({ revokedAt: params.now })
    .where(and(eq(apiKeys.id, params.keyId), eq(apiKeys.organizationId, params.organizationId), isNull(apiKeys.revokedAt)))
    .returning({ id: apiKeys.id });
  forgetApiKey(params.keyId);
  if (rows.length === 0) {
    const existing = await db
      .select({ id: apiKeys.id })
      .from(apiKeys)
      .where(and(eq(apiKeys.id, params.keyId), eq(apiKeys.organizationId, params.organizationId)));
    if (existing.length === 0) throw new AppError("NOT_FOUND", "API key not found.");
  }
  return { id: params.keyId, revoked: true };
}
