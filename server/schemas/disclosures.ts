import { z } from "zod";
import { ZConsentRecordSchema } from "./consent";

const ZSpokenDisclosureSchema = z.object({
  text: z.string().describe("The exact words (spoken word for word, never paraphrased by the model)."),
  spoken: z.boolean(),
  offsetMs: z.number().int().nullable().describe("Milliseconds from the answer to the start of the disclosure; null while not spoken."),
  spokenAt: z.string().nullable().describe("ISO 8601; null while not spoken."),
  via: z.enum(["call", "voicemail"]).nullable().describe("`call`: to the person who answered; `voicemail`: at the start of the message left on a machine."),
});

/** The audit trail of a call's disclosures (docs/compliance.md "Disclosures"): additive in metadata, webhook and events feed. */
export const ZCallDisclosuresSchema = z
  .object({
    identification: ZSpokenDisclosureSchema.describe("Who is calling: the organization, that it is an automated AI assistant, and why."),
    recordingNotice: ZSpokenDisclosureSchema.extend({
      required: z.boolean().describe("Whether this call needed the notice."),
      reason: z.enum(["all-party-consent-state", "agent-always"]).nullable().describe("Why: the number's area code maps to an all-party-consent state, or the agent says always; null when not required."),
      jurisdictions: z.array(z.string()).describe("The all-party-consent jurisdictions of the number's area code (ISO 3166-2, e.g. `US-CA`)."),
    }),
    recording: z
      .object({
        state: z.enum(["on", "declined", "not-recorded"]).describe("`on`; `declined`: the contact objected and the recording stopped for the rest of the call; `not-recorded`: the organization keeps no recordings."),
        changedAt: z.string().nullable(),
        offsetMs: z.number().int().nullable().describe("When the recording stopped (milliseconds from the answer)."),
        reason: z.string().nullable(),
      })
      .describe("Whether the call was recorded."),
    consent: ZConsentRecordSchema.nullable().describe("The consent record the call relied on (from enrollment); null when none was given."),
    plannedAt: z.string().describe("When the disclosures were decided (the dial)."),
  })
  .describe("What the contact was told and when, whether the call was recorded, and the consent it relied on. Null for calls not dialed yet.");

/** Why a call's transcript and analysis are gone (retention). */
export const ZContentRemovedSchema = z
  .object({
    removedAt: z.string().describe("ISO 8601."),
    reason: z.literal("retention").describe("The organization's retention period ended: transcript, analysis and recording were deleted."),
  })
  .describe("Set when the transcript, analysis and recording were deleted; null while they are kept.");
