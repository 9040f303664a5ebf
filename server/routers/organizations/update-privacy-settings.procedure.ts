import { updatePrivacySettings } from "@/server/services/organizations/privacy-settings";
import { requireRole } from "@/server/trpc/init";
import { ZUpdatePrivacySettingsRequestSchema, ZUpdatePrivacySettingsResponseSchema } from "./privacy-settings.schema";

/** Console, admins: change redaction and retention; fields left out keep their value. */
export const updatePrivacySettingsProcedure = requireRole("admin", { sessionOnly: true })
  .input(ZUpdatePrivacySettingsRequestSchema)
  .output(ZUpdatePrivacySettingsResponseSchema)
  .mutation(({ ctx, input }) => updatePrivacySettings(ctx.db, { organizationId: ctx.auth.organizationId, ...input }));
