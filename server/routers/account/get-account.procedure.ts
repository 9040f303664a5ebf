import { getAccount } from "@/server/services/account/manage-account";
import { sessionProcedure } from "@/server/trpc/init";
import { ZGetAccountRequestSchema, ZGetAccountResponseSchema } from "./account.schema";

export const getAccountProcedure = sessionProcedure
  .input(ZGetAccountRequestSchema)
  .output(ZGetAccountResponseSchema)
  .query(({ ctx }) => getAccount(ctx.db, { userId: ctx.session.userId }));
