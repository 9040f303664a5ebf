import { makePromptVersionCurrent } from "@/server/services/agent-tests/prompt-versions";
import { requireRole } from "@/server/trpc/init";
import { makePromptVersionCurrentMeta, ZMakePromptVersionCurrentRequestSchema, ZMakePromptVersionCurrentResponseSchema } from "./prompt-versions.schema";

export const makePromptVersionCurrentProcedure = requireRole("admin")
  .meta(makePromptVersionCurrentMeta)
  .input(ZMakePromptVersionCurrentRequestSchema)
  .output(ZMakePromptVersionCurrentResponseSchema)
  .mutation(({ ctx, input }) => makePromptVersionCurrent(ctx.db, { organizationId: ctx.auth.organizationId, ...input, now: ctx.now() }));
