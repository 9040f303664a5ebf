import { router } from "@/server/trpc/init";
import { addMemberProcedure } from "./add-member.procedure";
import { changeMemberRoleProcedure } from "./change-member-role.procedure";
import { listMembersProcedure } from "./list-members.procedure";
import { removeMemberProcedure } from "./remove-member.procedure";

/** Dashboard only (no REST meta): sessions, never API keys. */
export const membersRouter = router({
  list: listMembersProcedure,
  add: addMemberProcedure,
  changeRole: changeMemberRoleProcedure,
  remove: removeMemberProcedure,
});
