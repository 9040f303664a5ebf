import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { and, eq, isNull } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { apiKeys } from "@/db/schema";
import { dataDir, isEmbeddedMode } from "@/server/config/settings";
import { hashApiKey } from "@/server/services/api-keys/api-key-crypto";

type DemoFile = { organizations?: Array<{ orgId?: string; apiKey?: string }> };

/**
 * Embedded mode prints the demo key at first start and keeps it in $DATA_DIR/demo.json; the console shows it to
 * the organization's admins too, while it is still live. Never in production (no demo file is trusted there).
 */
export async function findDemoApiKey(db: DbOrTx, params: { organizationId: string; orgId: string }) {
  if (!isEmbeddedMode()) return null;
  const file = path.join(dataDir(), "demo.json");
  if (!existsSync(file)) return null;
  let demo: DemoFile;
  try {
    demo = JSON.parse(readFileSync(file, "utf8")) as DemoFile;
  } catch {
    return null;
  }
  const key = demo.organizations?.find((org) => org.orgId === params.orgId)?.apiKey;
  if (!key) return null;
  // Looked up by hash without touching lastUsedAt: showing the key is not using it.
  const rows = await db
    .select({ id: apiKeys.id })
    .from(apiKeys)
    .where(and(eq(apiKeys.keyHash, hashApiKey(key)), eq(apiKeys.organizationId, params.organizationId), isNull(apiKeys.revokedAt)))
    .limit(1);
  return rows[0] ? { id: rows[0].id, key } : null;
}
