import { getNumber } from "@/server/services/numbers/update-number";
import { orgProcedure } from "@/server/trpc/init";
import { getNumberMeta, ZGetNumberRequestSchema, ZNumberResponseSchema } from "./numbers.schema";

export const getNumberProcedure = orgProcedure
  .meta(getNumberMeta)
  .input(ZGetNumberRequestSchema)
  .output(ZNumberResponseSchema)
  .query(async ({ ctx, input }) => ({ number: await getNumber(ctx.db, { organizationId: ctx.auth.organizationId, numberId: input.numberId }) }));
