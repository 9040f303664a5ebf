/**
 * Templates of EMAIL and SMS steps (docs/sequences.md "Templates"). Pure: the agent editor's preview, the save-time
 * validation and the sender all use these functions, so the preview shows what is sent.
 *
 * Syntax: `{{variable}}` (spaces inside the braces allowed). A variable is one of the built-ins below or one of the
 * agent's input variables (by slug); anything else is refused when the agent is saved. A variable without a value for
 * a contact renders as empty text.
 */

export const BUILTIN_TEMPLATE_VARIABLES = {
  name: "The contact's name.",
  first_name: "The first word of the contact's name.",
  agent_name: "The agent's name.",
  last_call_summary: "The summary of the sequence's latest analysed call (empty before the first call).",
  meeting_time: "The booked meeting's start in the contact's timezone, e.g. `Tuesday, March 3 at 10:00 AM EST` (empty when none was booked).",
  meeting_link: "The booked meeting's link or location (empty when none was booked).",
} as const;

export type BuiltinTemplateVariable = keyof typeof BUILTIN_TEMPLATE_VARIABLES;

/** The most SMS segments a step may send (a longer message is refused at save). */
export const MAX_SMS_SEGMENTS = 3;

const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_.-]*)\s*\}\}/g;

/** The variable names a template uses, in order of first use. */
export function templateVariables(template: string): string[] {
  const names: string[] = [];
  for (const match of template.matchAll(PLACEHOLDER)) {
    const name = match[1] ?? "";
    if (!names.includes(name)) names.push(name);
  }
  return names;
}

/** The names a template may use with these input variables. */
export function knownTemplateVariables(inputVariableSlugs: readonly string[]): Set<string> {
  return new Set([...Object.keys(BUILTIN_TEMPLATE_VARIABLES), ...inputVariableSlugs]);
}

/** The first variable of the template that is not known, or null. */
export function findUnknownTemplateVariable(template: string, known: ReadonlySet<string>): string | null {
  return templateVariables(template).find((name) => !known.has(name)) ?? null;
}

/** Fills the placeholders; unknown or missing values become empty text. */
export function renderTemplate(template: string, values: Readonly<Record<string, string | null | undefined>>): string {
  return template.replace(PLACEHOLDER, (_all, name: string) => values[name] ?? "");
}

const HTML_ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => HTML_ESCAPES[char]!);
}

const URL_PATTERN = /(\bhttps?:\/\/[^\s<>"']*[^\s<>"'.,;:!?)])/;

/**
 * The HTML part of an email from its rendered plain text: every character escaped (a contact's name or a summary can
 * never inject markup), blank lines make paragraphs, single newlines line breaks, and http(s) URLs become links. No
 * other markup exists, so there is nothing unsafe to allow.
 */
export function renderEmailHtml(text: string, options: { unsubscribeUrl?: string | null } = {}): string {
  const paragraphs = text
    .replace(/\r\n?/g, "\n")
    .split(/\n{2,}/)
    .map((block) => block.trim())
    .filter(Boolean)
    .map((block) => {
      // A capturing split: odd parts are the URLs.
      const linked = block
        .split(URL_PATTERN)
        .map((part, index) => (index % 2 === 1 ? `<a href="${escapeHtml(part)}">${escapeHtml(part)}</a>` : escapeHtml(part)))
        .join("");
      return `<p>${linked.replace(/\n/g, "<br>\n")}</p>`;
    });
  if (options.unsubscribeUrl) {
    paragraphs.push(`<p style="font-size:12px;color:#666"><a href="${escapeHtml(options.unsubscribeUrl)}">Unsubscribe</a> from these emails.</p>`);
  }
  return `<!doctype html>\n<html><body style="font-family:sans-serif;line-height:1.5">\n${paragraphs.join("\n")}\n</body></html>\n`;
}

/** The footer appended to the plain-text part of every sequence email. */
export function emailTextFooter(unsubscribeUrl: string): string {
  return `\n\n--\nUnsubscribe from these emails: ${unsubscribeUrl}\n`;
}

// GSM 03.38: the basic set (1 septet) and the extension table (escape + 1 septet).
const GSM_BASIC = new Set(
  "@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !\"#¤%&'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà",
);
const GSM_EXTENDED = new Set("^{}\\[~]|€\f");

export type SmsSegmentCount = { encoding: "GSM-7" | "UCS-2"; units: number; segments: number; perSegment: number };

/**
 * How many SMS segments a text takes, as carriers count them: GSM-7 when every character is in the GSM alphabet
 * (160 in one segment, 153 per segment when concatenated; extension characters count twice), else UCS-2 (70, then 67
 * per segment; characters outside the BMP count twice).
 */
export function countSmsSegments(text: string): SmsSegmentCount {
  const chars = [...text];
  const gsm = chars.every((char) => GSM_BASIC.has(char) || GSM_EXTENDED.has(char));
  if (gsm) {
    const units = chars.reduce((sum, char) => sum + (GSM_EXTENDED.has(char) ? 2 : 1), 0);
    const segments = units === 0 ? 0 : units <= 160 ? 1 : Math.ceil(units / 153);
    return { encoding: "GSM-7", units, segments, perSegment: segments > 1 ? 153 : 160 };
  }
  const units = text.length; // UTF-16 code units: a character outside the BMP takes two
  const segments = units <= 70 ? 1 : Math.ceil(units / 67);
  return { encoding: "UCS-2", units, segments, perSegment: segments > 1 ? 67 : 70 };
}

/** Values used for the editor's preview and the save-time segment check: a sample contact. */
export function sampleTemplateValues(params: { agentName: string; inputVariables: ReadonlyArray<{ slug: string; displayName?: string }> }): Record<string, string> {
  const values: Record<string, string> = {
    name: "Jordan Rivera",
    first_name: "Jordan",
    agent_name: params.agentName || "Ava",
    last_call_summary: "Jordan asked for a short demo next week and for pricing by email.",
    meeting_time: "Tuesday, March 3 at 10:00 AM EST",
    meeting_link: "https://meet.example.com/abc-defg-hij",
  };
  for (const variable of params.inputVariables) values[variable.slug] = `<${variable.displayName || variable.slug}>`;
  return values;
}
