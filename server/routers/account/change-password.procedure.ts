import { clientIp } from "@/server/http/client-ip";
import { changePassword } from "@/server/services/account/manage-account";
import { sessionProcedure } from "@/server/trpc/init";
import { ZChangePasswordRequestSchema, ZChangePasswordResponseSchema } from "./account.schema";

/** Ends every session of the person, this one included (the console signs in again with the new password). */
export const changePasswordProcedure = sessionProcedure
  .input(ZChangePasswordRequestSchema)
  .output(ZChangePasswordResponseSchema)
  .mutation(({ ctx, input }) => changePassword(ctx.db, { userId: ctx.session.userId, ...input, ip: clientIp(ctx.headers) }));
