import { router } from "@/server/trpc/init";
import { changePasswordProcedure } from "./change-password.procedure";
import { getAccountProcedure } from "./get-account.procedure";

/** The signed-in person's own account (dashboard only). */
export const accountRouter = router({
  get: getAccountProcedure,
  changePassword: changePasswordProcedure,
});
