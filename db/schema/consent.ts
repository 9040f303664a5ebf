/** How the contact agreed to be called (TCPA vocabulary: prior express written consent, prior express consent…). */
export const consentTypes = ["express_written", "express", "existing_relationship", "other"] as const;
export type ConsentType = (typeof consentTypes)[number];

/** A consent record as stored with a sequence (JSON) and returned by the API. */
export type ConsentRecord = {
  type: ConsentType;
  /** When consent was captured (ISO 8601, UTC). */
  capturedAt: string;
  /** Where it was captured: a form, a page, a call, a contract… (free text). */
  source: string;
  /** A link to the evidence (a signed form, a recording); null when none was given. */
  evidenceUrl: string | null;
};
