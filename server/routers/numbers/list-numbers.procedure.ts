import { listNumbers } from "@/server/services/numbers/list-numbers";
import { orgProcedure } from "@/server/trpc/init";
import { listNumbersMeta, ZListNumbersRequestSchema, ZListNumbersResponseSchema } from "./numbers.schema";

export const listNumbersProcedure = orgProcedure
  .meta(listNumbersMeta)
  .input(ZListNumbersRequestSchema)
  .output(ZListNumbersResponseSchema)
  .query(({ ctx }) => listNumbers(ctx.db, { organizationId: ctx.auth.organizationId }));
