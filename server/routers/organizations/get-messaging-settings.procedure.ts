import { getMessagingSettings } from "@/server/services/organizations/messaging-settings";
import { requireRole } from "@/server/trpc/init";
import { ZGetMessagingSettingsRequestSchema, ZGetMessagingSettingsResponseSchema } from "./messaging-settings.schema";

/** Console: the organization's email sender, reply-to, SMS help text and each number's callback fallback. */
export const getMessagingSettingsProcedure = requireRole("member", { sessionOnly: true })
  .input(ZGetMessagingSettingsRequestSchema)
  .output(ZGetMessagingSettingsResponseSchema)
  .query(({ ctx }) => getMessagingSettings(ctx.db, { organizationId: ctx.auth.organizationId }));
