import { updateCallingSettings } from "@/server/services/organizations/calling-settings";
import { requireRole } from "@/server/trpc/init";
import { ZUpdateCallingSettingsRequestSchema, ZUpdateCallingSettingsResponseSchema } from "./calling-settings.schema";

/** Console, admins: change the organization's calling settings; fields left out keep their value. */
export const updateCallingSettingsProcedure = requireRole("admin", { sessionOnly: true })
  .input(ZUpdateCallingSettingsRequestSchema)
  .output(ZUpdateCallingSettingsResponseSchema)
  .mutation(({ ctx, input }) => updateCallingSettings(ctx.db, { organizationId: ctx.auth.organizationId, ...input }));
