/** The default disclosure texts and their limits (no imports: the console's editor uses them too). */
export const DEFAULT_IDENTIFICATION = "Hello, this is an automated AI assistant calling on behalf of {organization} to follow up on your enquiry.";
/** The default identification on a call the contact made to us (a callback): nobody is "calling on behalf of" then. */
export const DEFAULT_INBOUND_IDENTIFICATION = "Hello, you have reached an automated AI assistant of {organization}.";
export const DEFAULT_RECORDING_NOTICE = "This call is recorded and transcribed. If you would rather it was not recorded, just say so.";
/** The default notice of a call whose audio is not kept (the organization keeps no recordings, or a callback): it is still transcribed. */
export const DEFAULT_TRANSCRIPTION_NOTICE = "This call is transcribed; its audio is not recorded.";
export const DISCLOSURE_MAX_LENGTH = 500;
export const DISCLOSURE_PLACEHOLDERS = ["organization", "agent"] as const;
export const RECORDING_NOTICE_MODES = ["by-state", "always"] as const;
export type RecordingNoticeMode = (typeof RECORDING_NOTICE_MODES)[number];


/** Null when the text is acceptable; otherwise why not (unknown placeholder, length). */
export function disclosureTextProblem(text: string): string | null {
  if (!text.trim()) return "must not be empty";
  if (text.length > DISCLOSURE_MAX_LENGTH) return `must be at most ${DISCLOSURE_MAX_LENGTH} characters`;
  for (const match of text.matchAll(/\{([^{}]*)\}/g)) {
    if (!(DISCLOSURE_PLACEHOLDERS as readonly string[]).includes(match[1]!)) return `uses the unknown placeholder {${match[1]}} (known: ${DISCLOSURE_PLACEHOLDERS.map((name) => `{${name}}`).join(", ")})`;
  }
  return null;
}

