import { listInvitations } from "@/server/services/members/manage-invitations";
import { requireRole } from "@/server/trpc/init";
import { ZListInvitationsRequestSchema, ZListInvitationsResponseSchema } from "./invitations.schema";

export const listInvitationsProcedure = requireRole("admin", { sessionOnly: true })
  .input(ZListInvitationsRequestSchema)
  .output(ZListInvitationsResponseSchema)
  .query(({ ctx }) => listInvitations(ctx.db, { organizationId: ctx.auth.organizationId, now: ctx.now() }));
