import { getPrivacySettings } from "@/server/services/organizations/privacy-settings";
import { requireRole } from "@/server/trpc/init";
import { ZGetPrivacySettingsRequestSchema, ZGetPrivacySettingsResponseSchema } from "./privacy-settings.schema";

/** Console: the organization's redaction and retention settings. */
export const getPrivacySettingsProcedure = requireRole("member", { sessionOnly: true })
  .input(ZGetPrivacySettingsRequestSchema)
  .output(ZGetPrivacySettingsResponseSchema)
  .query(({ ctx }) => getPrivacySettings(ctx.db, { organizationId: ctx.auth.organizationId }));
