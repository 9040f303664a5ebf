import { changeMemberRole } from "@/server/services/members/change-member-role";
import { requireRole } from "@/server/trpc/init";
import { ZChangeMemberRoleRequestSchema, ZChangeMemberRoleResponseSchema } from "./members.schema";

export const changeMemberRoleProcedure = requireRole("admin", { sessionOnly: true })
  .input(ZChangeMemberRoleRequestSchema)
  .output(ZChangeMemberRoleResponseSchema)
  .mutation(({ ctx, input }) => changeMemberRole(ctx.db, { organizationId: ctx.auth.organizationId, ...input }));
