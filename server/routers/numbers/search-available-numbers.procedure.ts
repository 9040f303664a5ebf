import { searchAvailableNumbers } from "@/server/services/numbers/search-available-numbers";
import { requireRole } from "@/server/trpc/init";
import { searchAvailableNumbersMeta, ZSearchAvailableNumbersRequestSchema, ZSearchAvailableNumbersResponseSchema } from "./numbers.schema";

/** Admins: the step before buying. */
export const searchAvailableNumbersProcedure = requireRole("admin")
  .meta(searchAvailableNumbersMeta)
  .input(ZSearchAvailableNumbersRequestSchema)
  .output(ZSearchAvailableNumbersResponseSchema)
  .query(({ ctx, input }) =>
    searchAvailableNumbers(ctx.db, { carrier: input.carrier, country: input.country ?? "US", areaCode: input.areaCode, region: input.region, contains: input.contains, sms: input.sms, limit: input.limit ?? 20 }),
  );
