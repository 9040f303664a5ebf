import { getSequenceView } from "@/server/services/conversations/get-sequence-view";
import { getVoiceEngine } from "@/server/voice";
import { requireRole } from "@/server/trpc/init";
import { ZGetSequenceViewRequestSchema, ZGetSequenceViewResponseSchema } from "./get-sequence-view.schema";

/** Console: a sequence with its steps (done and to come), calls and chain. Every role reads conversations. */
export const getSequenceViewProcedure = requireRole("member", { sessionOnly: true })
  .input(ZGetSequenceViewRequestSchema)
  .output(ZGetSequenceViewResponseSchema)
  .query(({ ctx, input }) => getSequenceView(ctx.db, { organizationId: ctx.auth.organizationId, sequenceId: input.sequenceId, voiceEngineKind: getVoiceEngine().kind }));
