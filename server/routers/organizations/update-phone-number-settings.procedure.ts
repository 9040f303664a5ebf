import { updatePhoneNumberSettings } from "@/server/services/organizations/messaging-settings";
import { requireRole } from "@/server/trpc/init";
import { ZUpdatePhoneNumberSettingsRequestSchema, ZUpdatePhoneNumberSettingsResponseSchema } from "./messaging-settings.schema";

/** Console, admins: what a call to one of the organization's numbers gets when no agent takes it. */
export const updatePhoneNumberSettingsProcedure = requireRole("admin", { sessionOnly: true })
  .input(ZUpdatePhoneNumberSettingsRequestSchema)
  .output(ZUpdatePhoneNumberSettingsResponseSchema)
  .mutation(({ ctx, input }) => {
    const { actor, organizationId } = ctx.auth;
    return updatePhoneNumberSettings(ctx.db, { organizationId, actor: actor.type === "user" ? `user:${actor.userId}` : `apiKey:${actor.keyId}`, ...input, now: ctx.now() });
  });
