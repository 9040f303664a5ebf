import { router } from "@/server/trpc/init";
import { getCallingHoursProcedure } from "./get-calling-hours.procedure";
import { getCallingSettingsProcedure } from "./get-calling-settings.procedure";
import { getCurrentOrganizationProcedure } from "./get-current-organization.procedure";
import { getMessagingSettingsProcedure } from "./get-messaging-settings.procedure";
import { listMyOrganizationsProcedure } from "./list-my-organizations.procedure";
import { updateCallingSettingsProcedure } from "./update-calling-settings.procedure";
import { updateMessagingSettingsProcedure } from "./update-messaging-settings.procedure";
import { updatePhoneNumberSettingsProcedure } from "./update-phone-number-settings.procedure";
import { getPrivacySettingsProcedure } from "./get-privacy-settings.procedure";
import { updatePrivacySettingsProcedure } from "./update-privacy-settings.procedure";

export const organizationsRouter = router({
  listMine: listMyOrganizationsProcedure,
  current: getCurrentOrganizationProcedure,
  callingSettings: getCallingSettingsProcedure,
  callingHours: getCallingHoursProcedure,
  updateCallingSettings: updateCallingSettingsProcedure,
  messagingSettings: getMessagingSettingsProcedure,
  updateMessagingSettings: updateMessagingSettingsProcedure,
  updatePhoneNumberSettings: updatePhoneNumberSettingsProcedure,
  privacySettings: getPrivacySettingsProcedure,
  updatePrivacySettings: updatePrivacySettingsProcedure,
});
