import { updateMessagingSettings } from "@/server/services/organizations/messaging-settings";
import { requireRole } from "@/server/trpc/init";
import { ZUpdateMessagingSettingsRequestSchema, ZUpdateMessagingSettingsResponseSchema } from "./messaging-settings.schema";

/** Console, admins: the email sender, reply-to and SMS help text; fields left out keep their value. */
export const updateMessagingSettingsProcedure = requireRole("admin", { sessionOnly: true })
  .input(ZUpdateMessagingSettingsRequestSchema)
  .output(ZUpdateMessagingSettingsResponseSchema)
  .mutation(({ ctx, input }) => updateMessagingSettings(ctx.db, { organizationId: ctx.auth.organizationId, ...input }));
