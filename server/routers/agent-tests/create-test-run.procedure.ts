import { createTestRun } from "@/server/services/agent-tests/test-runs";
import { requireRole } from "@/server/trpc/init";
import { createTestRunMeta, ZCreateTestRunRequestSchema, ZCreateTestRunResponseSchema } from "./test-runs.schema";

export const createTestRunProcedure = requireRole("admin")
  .meta(createTestRunMeta)
  .input(ZCreateTestRunRequestSchema)
  .output(ZCreateTestRunResponseSchema)
  .mutation(({ ctx, input }) => {
    const { actor, organizationId } = ctx.auth;
    return createTestRun(ctx.db, {
      organizationId,
      agentId: input.agentId,
      promptVersionId: input.promptVersionId,
      testCaseIds: input.testCaseIds,
      concurrency: input.concurrency,
      source: ctx.source === "rest" ? "api" : "console",
      actorUserId: actor.type === "user" ? actor.userId : null,
      now: ctx.now(),
    });
  });
