import type { ConsentRecord } from "./consent";

/** One disclosure of a call: its exact text and whether, when and how it was spoken. */
export type SpokenDisclosure = {
  /** The exact words (the agent's text with the organization's name filled in). */
  text: string;
  spoken: boolean;
  /** Milliseconds from the answer to the start of the disclosure; null while not spoken. */
  offsetMs: number | null;
  spokenAt: string | null;
  /** `call`: to the person who answered; `voicemail`: at the start of the message left on a machine. */
  via: "call" | "voicemail" | null;
};

/** Why a call carries a recording notice. */
export type RecordingNoticeReason = "all-party-consent-state" | "agent-always";

/** Whether the call was recorded: `on`, `declined` (the contact objected; recording stopped from offsetMs), `not-recorded` (the organization keeps no recordings). */
export type CallRecordingState = "on" | "declined" | "not-recorded";

/**
 * The audit trail of a call (calls.disclosures): what the contact was told, when, whether the call was recorded, and
 * the consent record the call relied on. Written when the call is dialed (planned), then as things are spoken.
 */
export type CallDisclosures = {
  identification: SpokenDisclosure;
  recordingNotice: SpokenDisclosure & {
    required: boolean;
    /** Null when no notice was required. */
    reason: RecordingNoticeReason | null;
    /** The all-party-consent jurisdictions the number's area code maps to (ISO 3166-2, e.g. `US-CA`). */
    jurisdictions: string[];
  };
  recording: { state: CallRecordingState; changedAt: string | null; offsetMs: number | null; reason: string | null };
  consent: ConsentRecord | null;
  plannedAt: string;
};

/** A span of a call's recording silenced because its transcript was redacted there. */
export type RedactedSpan = { startMs: number; endMs: number; speaker: "agent" | "customer"; categories: string[] };
