import type { AppConfig } from "@/server/config/env";

/**
 * Keywords of an inbound SMS, as carriers and Twilio's Advanced Opt-Out read them
 * (https://help.twilio.com/articles/223134027): the whole message, letter case and surrounding spaces and punctuation
 * ignored.
 */
export const STOP_KEYWORDS = ["STOP", "STOPALL", "STOP ALL", "UNSUBSCRIBE", "CANCEL", "END", "QUIT", "OPTOUT", "OPT OUT", "OPT-OUT", "REVOKE"] as const;
export const START_KEYWORDS = ["START", "UNSTOP", "YES"] as const;
export const HELP_KEYWORDS = ["HELP", "INFO"] as const;

export type SmsKeyword = "stop" | "start" | "help" | null;

export function smsKeywordOf(body: string): SmsKeyword {
  const word = body
    .trim()
    .replace(/^[\s.!?,;:"'()]+|[\s.!?,;:"'()]+$/g, "")
    .replace(/\s+/g, " ")
    .toUpperCase();
  if ((STOP_KEYWORDS as readonly string[]).includes(word)) return "stop";
  if ((START_KEYWORDS as readonly string[]).includes(word)) return "start";
  if ((HELP_KEYWORDS as readonly string[]).includes(word)) return "help";
  return null;
}

/** Who answers STOP, START and HELP texts to our numbers (SMS_OPT_OUT_HANDLING, docs/sequences.md "SMS"). */
export type SmsOptOutHandling = AppConfig["SMS_OPT_OUT_HANDLING"];
export const smsOptOutHandlings = ["twilio-default", "advanced-opt-out", "app"] as const satisfies readonly SmsOptOutHandling[];

/**
 * The keywords Twilio's default opt-out handling answers itself on long codes and toll-free numbers, the whole message
 * in any letter case (https://help.twilio.com/articles/223134027,
 * https://www.twilio.com/docs/messaging/tutorials/advanced-opt-out): it blocks the sender after a STOP word (a send to
 * them is then refused with 21610 — our own reply too), lifts the block after a START word, and replies to all three
 * kinds with its own message.
 */
export const TWILIO_DEFAULT_KEYWORDS: ReadonlySet<string> = new Set(["STOP", "STOPALL", "UNSUBSCRIBE", "CANCEL", "END", "QUIT", "REVOKE", "OPTOUT", "START", "YES", "UNSTOP", "HELP", "INFO"]);

const OPT_OUT_TYPES: Record<string, Exclude<SmsKeyword, null>> = { STOP: "stop", START: "start", HELP: "help" };

/**
 * A keyword's kind and whether Twilio already answered it. With Advanced Opt-Out, Twilio marks the keywords it handled
 * (its own replies sent) with `OptOutType` = STOP, START or HELP in the inbound webhook
 * (https://help.twilio.com/articles/31560110671259): that kind is taken as given — the Messaging Service's keywords may
 * be other words — and never answered again. Without it, Twilio answered when its default handling applies to our
 * numbers and the message is one of its default keywords.
 */
export function readSmsKeyword(params: { body: string; optOutType?: string | null; handling: SmsOptOutHandling }): { keyword: SmsKeyword; answeredByTwilio: boolean } {
  const marked = OPT_OUT_TYPES[params.optOutType?.trim().toUpperCase() ?? ""];
  if (marked) return { keyword: marked, answeredByTwilio: true };
  const keyword = smsKeywordOf(params.body);
  const answeredByTwilio = keyword !== null && params.handling === "twilio-default" && TWILIO_DEFAULT_KEYWORDS.has(params.body.trim().toUpperCase());
  return { keyword, answeredByTwilio };
}

/** The carrier-style confirmations (Twilio's default wording), answered when Twilio does not answer (readSmsKeyword). */
export const STOP_CONFIRMATION = "You have successfully been unsubscribed. You will not receive any more messages from this number. Reply START to resubscribe.";
export const START_CONFIRMATION = "You have successfully been re-subscribed to messages from this number. Reply HELP for help. Reply STOP to unsubscribe. Msg&Data Rates May Apply.";

export function defaultHelpText(organizationName: string): string {
  return `${organizationName}: automated follow-up messages. Reply STOP to unsubscribe. Msg&Data Rates May Apply.`;
}
