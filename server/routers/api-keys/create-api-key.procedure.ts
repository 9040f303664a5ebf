import { createApiKey } from "@/server/services/api-keys/manage-api-keys";
import { requireRole } from "@/server/trpc/init";
import { ZCreateApiKeyRequestSchema, ZCreateApiKeyResponseSchema } from "./api-keys.schema";

export const createApiKeyProcedure = requireRole("admin", { sessionOnly: true })
  .input(ZCreateApiKeyRequestSchema)
  .output(ZCreateApiKeyResponseSchema)
  .mutation(async ({ ctx, input }) => {
    const { actor, organizationId } = ctx.auth;
    const created = await createApiKey(ctx.db, {
      organizationId,
      name: input.name,
      createdByUserId: actor.type === "user" ? actor.userId : null,
    });
    return { ...created, createdAt: created.createdAt.toISOString() };
  });
