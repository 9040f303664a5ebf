import { listMembers } from "@/server/services/members/list-members";
import { requireRole } from "@/server/trpc/init";
import { ZListMembersRequestSchema, ZListMembersResponseSchema } from "./members.schema";

export const listMembersProcedure = requireRole("member", { sessionOnly: true })
  .input(ZListMembersRequestSchema)
  .output(ZListMembersResponseSchema)
  .query(({ ctx }) => listMembers(ctx.db, { organizationId: ctx.auth.organizationId }));
