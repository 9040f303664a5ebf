import { releaseNumber } from "@/server/services/numbers/release-number";
import { suppressionActor } from "@/server/services/suppressions/suppression-actor";
import { requireRole } from "@/server/trpc/init";
import { releaseNumberMeta, ZNumberResponseSchema, ZReleaseNumberRequestSchema } from "./numbers.schema";

export const releaseNumberProcedure = requireRole("admin")
  .meta(releaseNumberMeta)
  .input(ZReleaseNumberRequestSchema)
  .output(ZNumberResponseSchema)
  .mutation(async ({ ctx, input }) => ({
    number: await releaseNumber(ctx.db, { organizationId: ctx.auth.organizationId, numberId: input.numberId, actor: suppressionActor(ctx.auth.actor), now: ctx.now() }),
  }));
