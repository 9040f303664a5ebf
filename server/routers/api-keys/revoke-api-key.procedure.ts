import { revokeApiKey } from "@/server/services/api-keys/manage-api-keys";
import { requireRole } from "@/server/trpc/init";
import { ZRevokeApiKeyRequestSchema, ZRevokeApiKeyResponseSchema } from "./api-keys.schema";

export const revokeApiKeyProcedure = requireRole("admin", { sessionOnly: true })
  .input(ZRevokeApiKeyRequestSchema)
  .output(ZRevokeApiKeyResponseSchema)
  .mutation(({ ctx, input }) =>
    revokeApiKey(ctx.db, { organizationId: ctx.auth.organizationId, keyId: input.keyId, now: ctx.now() }),
  );
