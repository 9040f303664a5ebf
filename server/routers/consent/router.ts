import { router } from "@/server/trpc/init";
import { exportConsentRecordsProcedure } from "./export-consent-records.procedure";

/** Consent records (stored with sequences at enrollment): the console's export. */
export const consentRouter = router({
  export: exportConsentRecordsProcedure,
});
