import type { CallDisclosures, CallRecordingState, ConsentRecord, SpokenDisclosure } from "@/db/schema";
import { locateNumber } from "@/server/services/compliance/area-code-regions";
import { allPartyConsentJurisdictions } from "./recording-consent-rules";

/**
 * The disclosures of a connected call (docs/compliance.md "Disclosures"): the identification on every call, then the
 * recording notice where the number's area code maps to an all-party-consent state or the agent says always. Both are
 * spoken exactly as rendered here, before anything else the agent says.
 */
import { DEFAULT_IDENTIFICATION, DEFAULT_INBOUND_IDENTIFICATION, DEFAULT_RECORDING_NOTICE, DEFAULT_TRANSCRIPTION_NOTICE, type RecordingNoticeMode } from "./disclosure-texts";

export { DEFAULT_IDENTIFICATION, DEFAULT_RECORDING_NOTICE, DEFAULT_TRANSCRIPTION_NOTICE, DISCLOSURE_MAX_LENGTH, DISCLOSURE_PLACEHOLDERS, disclosureTextProblem, RECORDING_NOTICE_MODES, type RecordingNoticeMode } from "./disclosure-texts";

export function renderDisclosure(template: string, values: { organization: string; agent: string }): string {
  return template
    .replace(/\{organization\}/g, values.organization)
    .replace(/\{agent\}/g, values.agent)
    .replace(/\s+/g, " ")
    .trim();
}

export type PlanDisclosuresParams = {
  organizationName: string;
  agent: { name: string; identification: string | null; recordingNotice: string | null; recordingNoticeMode: RecordingNoticeMode };
  /** The contact's E.164 number (its area code decides the state). */
  phoneNumber: string;
  /** The contact called us (a callback): the default identification says so. */
  inbound?: boolean;
  keepRecordings: boolean;
  consent: ConsentRecord | null;
  now: Date;
};

const unspoken = (text: string): SpokenDisclosure => ({ text, spoken: false, offsetMs: null, spokenAt: null, via: null });

/** What a call will disclose, decided when it is dialed (the audit trail starts here). */
export function planDisclosures(params: PlanDisclosuresParams): CallDisclosures {
  const values = { organization: params.organizationName, agent: params.agent.name };
  const jurisdictions = allPartyConsentJurisdictions(locateNumber(params.phoneNumber).regions);
  const always = params.agent.recordingNoticeMode === "always";
  const required = always || jurisdictions.length > 0;
  // Audio is recorded on outbound calls of organizations that keep recordings; a callback's conversation is transcribed,
  // its audio not kept (docs/sequences.md "Callbacks"). The default notice says which, so nobody is told of a
  // recording that is not made.
  const recorded = params.keepRecordings && !params.inbound;
  const recordingState: CallRecordingState = recorded ? "on" : "not-recorded";
  const defaultNotice = recorded ? DEFAULT_RECORDING_NOTICE : DEFAULT_TRANSCRIPTION_NOTICE;
  return {
    identification: unspoken(renderDisclosure(params.agent.identification ?? (params.inbound ? DEFAULT_INBOUND_IDENTIFICATION : DEFAULT_IDENTIFICATION), values)),
    recordingNotice: {
      ...unspoken(required ? renderDisclosure(params.agent.recordingNotice ?? defaultNotice, values) : ""),
      required,
      reason: jurisdictions.length > 0 ? "all-party-consent-state" : always ? "agent-always" : null,
      jurisdictions,
    },
    recording: { state: recordingState, changedAt: null, offsetMs: null, reason: null },
    consent: params.consent,
    plannedAt: params.now.toISOString(),
  };
}

/** The texts to speak, in order (identification first; the notice when required). None for a call that is no phone call (a browser test). */
export function disclosureTexts(disclosures: CallDisclosures): Array<{ kind: "identification" | "recordingNotice"; text: string }> {
  return [
    ...(disclosures.identification.text ? [{ kind: "identification" as const, text: disclosures.identification.text }] : []),
    ...(disclosures.recordingNotice.required && disclosures.recordingNotice.text ? [{ kind: "recordingNotice" as const, text: disclosures.recordingNotice.text }] : []),
  ];
}

/** The privacy of a call that reaches no contact (a browser test call): nothing to disclose, record or redact. */
export function noCallPrivacyDisclosures(now: Date): CallDisclosures {
  const none = { text: "", spoken: false, offsetMs: null, spokenAt: null, via: null };
  return { identification: none, recordingNotice: { ...none, required: false, reason: null, jurisdictions: [] }, recording: { state: "not-recorded", changedAt: null, offsetMs: null, reason: null }, consent: null, plannedAt: now.toISOString() };
}

/**
 * What the contact said that objects to the recording ("don't record this", "stop recording", "I do not consent to
 * being recorded"). The model's `stop_recording` tool is the first line; this catches what it misses.
 */
export function objectsToRecording(text: string): boolean {
  return /\b(don'?t|do not|please don'?t|stop|no|not)\b[^.?!]{0,24}\brecord(ing|ed)?\b/i.test(text) || /\bturn off (the )?recording\b/i.test(text) || /\b(do not|don'?t) consent to (being )?record/i.test(text);
}
