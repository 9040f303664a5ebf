import { findDemoApiKey } from "@/server/services/members/find-demo-api-key";
import { listApiKeys } from "@/server/services/api-keys/manage-api-keys";
import { requireRole } from "@/server/trpc/init";
import { ZListApiKeysRequestSchema, ZListApiKeysResponseSchema } from "./api-keys.schema";

export const listApiKeysProcedure = requireRole("admin", { sessionOnly: true })
  .input(ZListApiKeysRequestSchema)
  .output(ZListApiKeysResponseSchema)
  .query(async ({ ctx }) => {
    const { organizationId, orgId } = ctx.auth;
    const [rows, demoKey] = await Promise.all([
      listApiKeys(ctx.db, { organizationId }),
      findDemoApiKey(ctx.db, { organizationId, orgId }),
    ]);
    return {
      apiKeys: rows.map((row) => ({
        ...row,
        createdAt: row.createdAt.toISOString(),
        lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
        revokedAt: row.revokedAt?.toISOString() ?? null,
      })),
      demoKey,
    };
  });
