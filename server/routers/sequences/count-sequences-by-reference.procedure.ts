import { countSequencesByReference } from "@/server/services/sequences/count-sequences-by-reference";
import { requireRole } from "@/server/trpc/init";
import { ZCountSequencesByReferenceRequestSchema, ZCountSequencesByReferenceResponseSchema } from "./count-sequences-by-reference.schema";

/** Console: what a cancel by reference would touch, shown before it is confirmed. */
export const countSequencesByReferenceProcedure = requireRole("member", { sessionOnly: true })
  .input(ZCountSequencesByReferenceRequestSchema)
  .output(ZCountSequencesByReferenceResponseSchema)
  .query(({ ctx, input }) => countSequencesByReference(ctx.db, { organizationId: ctx.auth.organizationId, ...input }));
