import { router } from "@/server/trpc/init";
import { findCallOrganizationProcedure } from "./find-call-organization.procedure";
import { getConversationMetadataProcedure } from "./get-conversation-metadata.procedure";
import { getSequenceViewProcedure } from "./get-sequence-view.procedure";
import { listOutboxProcedure } from "./list-outbox.procedure";
import { listSequenceSummariesProcedure } from "./list-sequence-summaries.procedure";
import { searchConversationsProcedure } from "./search-conversations.procedure";

/**
 * search and metadata are also `/api/v1` operations. sequenceSummaries, sequenceView and outbox are the console's reads
 * (dashboard only, no REST route); callOrganization resolves a call link for the signed-in person. Console changes go
 * through meetings.addAttendees / meetings.cancel and sequences.cancel.
 */
export const conversationsRouter = router({
  search: searchConversationsProcedure,
  metadata: getConversationMetadataProcedure,
  sequenceSummaries: listSequenceSummariesProcedure,
  sequenceView: getSequenceViewProcedure,
  outbox: listOutboxProcedure,
  callOrganization: findCallOrganizationProcedure,
});
