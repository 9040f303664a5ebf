import { router } from "@/server/trpc/init";
import { changeMemberRoleProcedure } from "./change-member-role.procedure";
import { listMembersProcedure } from "./list-members.procedure";
import { removeMemberProcedure } from "./remove-member.procedure";

/** Dashboard only (no REST meta): sessions, never API keys. People join through invitations (routers/invitations). */
export const membersRouter = router({
  list: listMembersProcedure,
  changeRole: changeMemberRoleProcedure,
  remove: removeMemberProcedure,
});
