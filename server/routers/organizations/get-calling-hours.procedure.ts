import { listCallingHours } from "@/server/services/compliance/calling-hours";
import { requireRole } from "@/server/trpc/init";
import { ZGetCallingHoursRequestSchema, ZGetCallingHoursResponseSchema } from "./get-calling-hours.schema";

/** Console (Compliance page): the calling hours in force — the quiet-hours rules the dial gate applies. */
export const getCallingHoursProcedure = requireRole("member", { sessionOnly: true })
  .input(ZGetCallingHoursRequestSchema)
  .output(ZGetCallingHoursResponseSchema)
  .query(() => listCallingHours());
