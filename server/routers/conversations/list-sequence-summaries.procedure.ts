import { listSequenceSummaries } from "@/server/services/conversations/list-sequence-summaries";
import { requireRole } from "@/server/trpc/init";
import { ZListSequenceSummariesRequestSchema, ZListSequenceSummariesResponseSchema } from "./list-sequence-summaries.schema";

/** Console: one row per sequence of a conversation search page. Every role reads conversations. */
export const listSequenceSummariesProcedure = requireRole("member", { sessionOnly: true })
  .input(ZListSequenceSummariesRequestSchema)
  .output(ZListSequenceSummariesResponseSchema)
  .query(({ ctx, input }) => listSequenceSummaries(ctx.db, { organizationId: ctx.auth.organizationId, sequenceIds: input.sequenceIds }));
