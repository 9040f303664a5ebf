import { getCallingSettings } from "@/server/services/organizations/calling-settings";
import { requireRole } from "@/server/trpc/init";
import { ZGetCallingSettingsRequestSchema, ZGetCallingSettingsResponseSchema } from "./calling-settings.schema";

/** Console: the organization's calling settings (consent requirement, concurrency cap). */
export const getCallingSettingsProcedure = requireRole("member", { sessionOnly: true })
  .input(ZGetCallingSettingsRequestSchema)
  .output(ZGetCallingSettingsResponseSchema)
  .query(({ ctx }) => getCallingSettings(ctx.db, { organizationId: ctx.auth.organizationId }));
