import { listPromptVersions } from "@/server/services/agent-tests/prompt-versions";
import { requireRole } from "@/server/trpc/init";
import { listPromptVersionsMeta, ZListPromptVersionsRequestSchema, ZListPromptVersionsResponseSchema } from "./prompt-versions.schema";

export const listPromptVersionsProcedure = requireRole("member")
  .meta(listPromptVersionsMeta)
  .input(ZListPromptVersionsRequestSchema)
  .output(ZListPromptVersionsResponseSchema)
  .query(({ ctx, input }) => listPromptVersions(ctx.db, { organizationId: ctx.auth.organizationId, agentId: input.agentId }));
