import { z } from "zod";
import { MAX_API_KEY_NAME_LENGTH } from "@/server/schemas/limits";
import { boundedText, idText } from "@/server/schemas/text";

export const ZApiKeySchema = z.object({
  id: z.string(),
  name: z.string(),
  prefix: z.string().describe("The visible start of the key."),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
  revokedAt: z.string().nullable(),
});

export const ZListApiKeysRequestSchema = z.object({}).optional();
export const ZListApiKeysResponseSchema = z.object({
  apiKeys: z.array(ZApiKeySchema),
  /** Embedded mode only: the seeded demo key of this organization while it is still live (it is in $DATA_DIR/demo.json anyway). */
  demoKey: z.object({ id: z.string(), key: z.string() }).nullable(),
});

export const ZCreateApiKeyRequestSchema = z.object({ name: boundedText(MAX_API_KEY_NAME_LENGTH).trim().min(1, "Give the key a name.") });
export const ZCreateApiKeyResponseSchema = z.object({
  id: z.string(),
  name: z.string(),
  prefix: z.string(),
  createdAt: z.string(),
  key: z.string().describe("The whole key: shown this once, never stored."),
});

export const ZRevokeApiKeyRequestSchema = z.object({ keyId: idText() });
export const ZRevokeApiKeyResponseSchema = z.object({ id: z.string(), revoked: z.boolean() });
