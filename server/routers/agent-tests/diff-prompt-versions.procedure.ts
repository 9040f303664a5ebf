import { diffPromptVersions } from "@/server/services/agent-tests/prompt-versions";
import { requireRole } from "@/server/trpc/init";
import { diffPromptVersionsMeta, ZDiffPromptVersionsRequestSchema, ZDiffPromptVersionsResponseSchema } from "./prompt-versions.schema";

export const diffPromptVersionsProcedure = requireRole("member")
  .meta(diffPromptVersionsMeta)
  .input(ZDiffPromptVersionsRequestSchema)
  .output(ZDiffPromptVersionsResponseSchema)
  .query(({ ctx, input }) => diffPromptVersions(ctx.db, { organizationId: ctx.auth.organizationId, agentId: input.agentId, fromPromptVersionId: input.from, toPromptVersionId: input.to }));
