import { DateTime } from "luxon";
import { FALLBACK_OFFERS } from "@/server/voice/transfer-settings";
import type { PlaceCallRequest } from "@/server/voice/types";
import { buildCallbackInstructions } from "./callback-instructions";
import { disclosureTexts } from "@/server/services/privacy/disclosures";

/**
 * The Realtime agent's instructions for one call: the agent's own prompt, then who is being called (name, email,
 * the input variables it was enrolled with), the current date and time in the contact's time zone, when to greet, and
 * how to use the tools.
 */
export function buildCallInstructions(request: PlaceCallRequest, now: Date): string {
  if (request.callback) return buildCallbackInstructions(request, now);
  const zone = request.contact.timezone || "UTC";
  const local = DateTime.fromJSDate(now, { zone });
  const variables = Object.entries(request.contact.variables).filter(([, value]) => value.trim() !== "");
  const goals = request.agent.goals.map((goal) => `- ${goal.displayName}${goal.description ? `: ${goal.description}` : ""}`);
  return [
    request.agent.prompt.trim() || `You are ${request.agent.name}, a friendly and concise phone agent.`,
    "",
    "# This call",
    `You are ${request.agent.name}, on an outbound phone call to ${request.contact.name}.`,
    `It is now ${local.toFormat("cccc, d LLLL yyyy, HH:mm")} for the contact (${zone}).`,
    ...(request.contact.email ? [`The contact's email address: ${request.contact.email}.`] : []),
    ...(variables.length ? ["What we know about the contact:", ...variables.map(([key, value]) => `- ${key}: ${value}`)] : []),
    ...(goals.length ? ["During the conversation, find out:", ...goals] : []),
    "",
    "# How to talk",
    request.agent.voice.greetingMode === "wait-for-callee"
      ? "Let the callee speak first, then introduce yourself. Speak briefly and naturally, one question at a time."
      : "Greet the contact and introduce yourself as soon as the call starts, without waiting for them. Speak briefly and naturally, one question at a time; stop when they speak.",
    `If an automated call screener asks who is calling and why, you are ${request.agent.name}${request.agent.voice.callPurpose ? `, calling ${request.agent.voice.callPurpose}` : ""}.`,
    ...disclosureInstructions(request),
    "",
    "# Tools",
    request.agent.hasBookingTool
      ? "- book_meeting: when the contact agrees to a follow-up meeting, book it (pass their preferred time if they said one), then confirm the result."
      : "- book_meeting: no calendar is configured for this agent; offer that a colleague will follow up instead.",
    "- opt_out: when the contact asks not to be called again, call it at once, then apologise briefly and say goodbye.",
    "- stop_recording: when the contact says they do not want the call recorded, call it at once, confirm that the recording is stopped, and carry on.",
    "- end_call: after you have said goodbye, call it to hang up.",
    ...transferInstructions(request),
    "- press_digits: press keys on the keypad (see Phone menus).",
    "",
    "# Phone menus",
    "If a recorded phone menu answers (\"for sales, press 1\"), do not talk to it: listen to the options and press the key that leads",
    `towards ${request.agent.phoneMenuGoal?.trim() ? request.agent.phoneMenuGoal.trim() : "a person"} with press_digits; if no option fits, press the one for an operator or a person (often 0).`,
    "After pressing, stay silent until a person answers, then introduce yourself as usual. Never press keys when a person is talking to you.",
    "If the contact presses keys, you receive them as a note in the conversation.",
    "- report_answered_by: as soon as you can tell who or what answered (a person, a voicemail greeting, a phone menu, an automated call screener, a fax), call it once and follow its result.",
  ].join("\n");
}

/** The transfer targets and when to use each, or nothing when the agent does not transfer. */
function transferInstructions(request: PlaceCallRequest): string[] {
  const config = request.agent.transfer;
  if (!config || config.targets.length === 0) return [];
  const fallback = FALLBACK_OFFERS[config.fallback];
  return [
    `- transfer_call: when the contact asks for a person, or the situation needs one, hand the call over (${config.mode === "warm" ? "they wait on hold while you get a colleague; the colleague hears a summary first" : "they are put straight through"}). Targets:`,
    ...config.targets.map((target) => `  - "${target.label}"${target.whenToUse ? `: ${target.whenToUse}` : ""}`),
    `  Pass the target's label and a one-sentence reason. If the result says nobody is available, tell the contact and ${fallback}.`,
  ];
}

/** What the contact has already heard before the model speaks (played word for word by the engine). */
function disclosureInstructions(request: PlaceCallRequest): string[] {
  const spoken = disclosureTexts(request.privacy.disclosures).map((disclosure) => `"${disclosure.text}"`);
  if (spoken.length === 0) return [];
  return [
    "Before you say anything, the contact has already heard this from us, word for word: " + spoken.join(" ") + " Do not repeat it; never deny being an automated assistant.",
  ];
}
